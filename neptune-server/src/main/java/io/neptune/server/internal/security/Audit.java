package io.neptune.server.internal.security;

import io.neptune.core.NodeId;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail of operator actions: each drain, host, unhost, promote, move-primary (pinned
 * take-over) and reconfiguration (add or remove a replica, a rebalance's steps) a node is asked to
 * do is logged once, by the node that does it, with who asked, under the stable code
 * {@code NEP-AUDIT-001} and the logger {@value #LOGGER}, which an operator can route to a file or
 * a collector of its own; so are the gateway's kills and starts of nodes. Refused attempts are
 * logged by the refusal ({@code NEP-SEC-02x}).
 */
public final class Audit {
    /** The logger name of the audit trail. */
    public static final String LOGGER = "io.neptune.audit";

    private static final Logger logger = LoggerFactory.getLogger(LOGGER);

    private static final int MAX_SHOWN = 300;

    private Audit() {}

    /** The request body of an action as a log line shows it: UTF-8, control characters as '?', at most 300 characters. */
    public static String payload(byte[] body) {
        String text = new String(body, 0, Math.min(body.length, MAX_SHOWN), StandardCharsets.UTF_8);
        return text.replaceAll("\\p{Cntrl}", "?") + (body.length > MAX_SHOWN ? "..." : "");
    }

    /** Logs that {@code caller} asked {@code node} to do {@code action} on {@code target}. */
    public static void operatorAction(NodeId node, Caller caller, String action, String target) {
        operatorAction(node, caller.toString(), action, target);
    }

    /** Logs that {@code who} (a description of the principal) had {@code node} do {@code action} on {@code target}. */
    public static void operatorAction(NodeId node, String who, String action, String target) {
        logger.info("{}: NEP-AUDIT-001 {} by {} on {}", node, action, who, target);
    }
}
