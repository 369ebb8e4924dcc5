package io.neptune.core.internal.membership;

/**
 * Why membership refused a peer or dropped an announcement, each with the stable code its log line
 * starts with (docs/SECURITY.md, "Membership").
 */
public enum Refusal {
    /** A JGroups TLS peer presented no certificate of a trusted authority: it cannot join. */
    UNTRUSTED_PEER("NEP-SEC-030", "refused a JGroups TLS peer whose certificate is not trusted"),
    /** An announcement came without a signature, or its signed frame is malformed. */
    UNSIGNED("NEP-SEC-031", "dropped an unsigned or malformed announcement"),
    /** The certificate chain of a signed announcement does not lead to a trusted authority, or has expired. */
    UNTRUSTED_CERTIFICATE("NEP-SEC-032", "dropped an announcement signed with an untrusted certificate"),
    /** The announcement names a node other than the one its certificate names. */
    OTHER_NODE("NEP-SEC-033", "dropped an announcement of a node its certificate does not name"),
    /** The signature does not verify with the certificate's key. */
    BAD_SIGNATURE("NEP-SEC-034", "dropped an announcement whose signature does not verify"),
    /** The announcement's (incarnation, sequence) is not above the node's last accepted one: a replay. */
    REPLAYED("NEP-SEC-035", "dropped a replayed announcement"),
    /** A udp-stack group-key exchange peer's trusted certificate names no node (a client's or operator's, say). */
    NOT_A_NODE("NEP-SEC-036", "refused the group key to or from a peer whose certificate names no node");

    private final String code;
    private final String summary;

    Refusal(String code, String summary) {
        this.code = code;
        this.summary = summary;
    }

    /** The stable code, {@code NEP-SEC-03x}. */
    public String code() {
        return code;
    }

    /** What was refused, for the log line. */
    public String summary() {
        return summary;
    }

    /** The metric tag: the name in lower case, with dashes. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
