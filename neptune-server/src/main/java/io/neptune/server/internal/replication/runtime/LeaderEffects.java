package io.neptune.server.internal.replication.runtime;

import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import org.slf4j.Logger;

/**
 * Carries out the effects of a {@link Ready} that both leaders' drivers ({@link QuorumLeader},
 * {@link PrimaryPipeline}; {@code docs/protocols/replication.md}) carry out alike: a record to append
 * to the log, a {@code replicate} to send, a line to log. Every other effect, its mode's own, it hands
 * to the driver's {@link Own}, in the order the leader decided. What differs by mode in the shared
 * effects comes in as a strategy, not a copy: how the leader hears how its appends ended
 * ({@link Appends}), and how a message names its epoch and its previous record's origin (the
 * driver's {@link ReplicateSender}).
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its driver.
 */
final class LeaderEffects {
    /** The driver's side: the effects that are its mode's own. */
    @FunctionalInterface
    interface Own {
        /**
         * Carries out {@code effect}, one this class does not; throws {@link IllegalStateException} for one
         * its mode never decides. A failed append comes here as a {@link Ready.StepDown}.
         */
        void carryOut(Ready.Effect effect);
    }

    /** How the leader hears how the appends of its records ended: the part of an {@link Ready.Append} that differs by mode. */
    sealed interface Appends permits FailuresWhile, Reported {}

    /**
     * Only a failed append is heard, on the partition's executor, and only while {@code leads} holds then:
     * the leader learns what is durable from this node's forces ({@code majority} mode's).
     */
    record FailuresWhile(BooleanSupplier leads) implements Appends {}

    /**
     * Every append's end is heard on the partition's executor: a failure steps down whatever the replica
     * is by then, and a durable record's LSN goes to {@code logged}, whose decision is carried out in turn
     * (fail-stop mode's).
     */
    record Reported(LongFunction<Ready> logged) implements Appends {}

    private final ReplicaCore core;
    /** The driver's logger: the lines keep the category of the mode that logs them. */
    private final Logger logger;
    private final ReplicateSender sender;
    private final Appends appends;
    private final Own own;

    /**
     * Carries out effects against {@code core}'s log and peers: sends through {@code sender}, logs to
     * {@code logger}, hears of appends as {@code appends} says, and hands the rest to {@code own}.
     */
    LeaderEffects(ReplicaCore core, Logger logger, ReplicateSender sender, Appends appends, Own own) {
        this.core = core;
        this.logger = logger;
        this.sender = sender;
        this.appends = appends;
        this.own = own;
    }

    /** Does what the leader decided, in its order. */
    void carryOut(Ready ready) {
        for (Ready.Effect effect : ready.effects()) {
            if (effect instanceof Ready.Append a) {
                append(a.record());
            } else if (effect instanceof Ready.Send s) {
                sender.send(s);
            } else if (effect instanceof Ready.Warn w) {
                logger.warn("{}: {}", core.name, w.message());
            } else if (effect instanceof Ready.Debug d) {
                logger.debug("{}: {}", core.name, d.message());
            } else {
                own.carryOut(effect);
            }
        }
    }

    /** Hands {@code record} to the log; its end comes back as {@link #appends} says. */
    private void append(LogRecord record) {
        long lsn = record.lsn();
        if (appends instanceof Reported reported) {
            core.append(record).whenComplete((v, e) -> core.exec.execute(() -> {
                if (e != null) {
                    failed(lsn, e);
                    return;
                }
                carryOut(reported.logged().apply(lsn));
            }));
        } else if (appends instanceof FailuresWhile scoped) {
            core.append(record).whenComplete((v, e) -> {
                if (e != null) {
                    core.exec.execute(() -> {
                        if (scoped.leads().getAsBoolean()) {
                            failed(lsn, e);
                        }
                    });
                }
            });
        }
    }

    /** The append at {@code lsn} failed: a leader whose log fails cannot go on, so it steps down. */
    private void failed(long lsn, Throwable error) {
        logger.error("{}: REDO log append failed at {}; stepping down", core.name, lsn, error);
        own.carryOut(new Ready.StepDown("log failure"));
    }
}
