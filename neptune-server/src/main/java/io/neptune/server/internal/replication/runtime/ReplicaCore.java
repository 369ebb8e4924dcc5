package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.log.InternalSync;
import io.neptune.server.internal.log.KnownRequest;
import io.neptune.server.internal.log.LogBoundary;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.replication.protocol.Local;
import io.neptune.server.internal.replication.protocol.LogView;
import io.neptune.server.internal.replication.protocol.WriteDedup;
import io.neptune.server.storage.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every replicated partition has, whatever its level: the REDO log with durability tracking,
 * in-order application of logged writes, the cache of recent responses by request id, version
 * waiters, and the published state.
 *
 * <p>Thread-safety: confined to {@link #exec} except {@link #state()}, {@link #readVersion()} and
 * {@link #awaitVersion}, which are thread-safe.
 */
final class ReplicaCore {
    private static final Logger logger = LoggerFactory.getLogger(ReplicaCore.class);
    private static final int MAX_CACHED_RESPONSES = 10_000;
    /**
     * The most records one replication message carries; {@link #maxBatchBytes} is the bound that
     * matters for all but small records (a 64-byte write is about 400 bytes on the wire).
     */
    static final int MAX_BATCH_RECORDS = 4096;
    /** How many records {@link #forEachRecord} reads at a time. */
    static final int SCAN_CHUNK_RECORDS = 1000;

    final String service;
    final int partition;
    final String name;
    final NodeId self;
    final Log log;
    /** {@link #log} as the protocol's decisions read it. */
    final LogView logView = new LogView() {
        @Override
        public long lastLsn() {
            return log.lastLsn();
        }

        @Override
        public long epochOf(long lsn) {
            return log.epochOf(lsn);
        }

        @Override
        public long epoch() {
            return log.epoch();
        }

        @Override
        public LogRecord record(long lsn) {
            return log.record(lsn).orElseThrow(() -> new IllegalArgumentException("no record " + lsn + " in the log"));
        }

        @Override
        public long startLsn() {
            return log.startLsn();
        }

        @Override
        public List<LogRecord> batch(long fromLsn) {
            return ReplicaCore.this.batch(fromLsn);
        }
    };
    /** Where the partition keeps its files beside the log: snapshots, the membership list, level 1's origin bases. */
    final Path directory;
    final PartitionService app;
    final Peers peers;
    final SerialExecutor exec;
    final ScheduledExecutorService timer;
    /** The trace contexts of the traced writes logged here lately, for the replicate messages that carry them. */
    final LoggedTraces traces = new LoggedTraces();

    /** The LSN of the last write applied to the service. */
    long applied;
    /** The LSN up to which the log is durable. */
    long durable;
    /** How many times the log was truncated: appends started before a truncation do not advance {@link #durable}. */
    private long truncations;
    /** Applies the logged, durable writes to {@link #app}; see {@link #applyUpTo(long, long)}. */
    private final Applier applier = new Applier(this);
    private final Map<RequestId, ResponseMessage> responses = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<RequestId, ResponseMessage> eldest) {
            return size() > MAX_CACHED_RESPONSES;
        }
    };
    private final List<Waiter> waiters = new ArrayList<>();
    private volatile ReplicaState state = ReplicaState.INITIAL;
    /** The LSN of the write being applied, else of the last one applied: no read can see a newer state. */
    volatile long applying;
    /** The replica's clock; see {@link CoreSetup#clock}. */
    final LongSupplier clock;
    /** The replica's randomness, confined to {@link #exec}; see {@link CoreSetup#random}. */
    final RandomGenerator random;
    /** Runs slow background work off {@link #exec}; see {@link CoreSetup#background}. */
    final Executor background;
    /** Told of every role change; see {@link CoreSetup#roleChanged}. */
    final BiConsumer<ReplicaRole, ReplicaRole> roleChanged;
    /** Told how long a take-over from another primary took; see {@link CoreSetup#tookOver}. */
    final LongConsumer tookOver;
    /** Whether the node drains; see {@link CoreSetup#draining}. */
    final BooleanSupplier draining;
    /** Hands records to the log; see {@link CoreSetup#logAppend}. */
    final Function<List<LogRecord>, List<CompletableFuture<Void>>> logAppend;
    /** Most bytes of records one replication message carries; see {@link CoreSetup#maxBatchBytes}. */
    final long maxBatchBytes;
    /** How much of the log {@link Snapshots#checkpoint} keeps, read at each checkpoint; see {@link CoreSetup#retention}. */
    final Supplier<LogRetentionConfig> retention;
    /**
     * Whether the service applied less than the log's boundary (it lost writes whose records were
     * dropped after a checkpoint): only a snapshot brings it back.
     */
    boolean needsSnapshot;
    private @Nullable Snapshots snapshots;
    /** What this core asks of its replica's mode; {@link #attach}ed once. */
    ModeCallbacks mode = ModeCallbacks.NONE;

    /** This node as a leader's decisions are told of it with an input: now, and how far the log is forced and applied. */
    Local local() {
        return new Local(clock.getAsLong(), durable, applied);
    }

    /** The replica built on this core answers for its mode from now on; once, when it is built. */
    void attach(ModeCallbacks callbacks) {
        assert mode == ModeCallbacks.NONE : name + ": a second replica attached to its core";
        this.mode = callbacks;
    }

    private record Waiter(long version, CompletableFuture<Boolean> future) {}

    /** A core built from {@code setup}: see {@link CoreSetup#build}. */
    ReplicaCore(CoreSetup setup) {
        this.service = setup.service;
        this.partition = setup.partition;
        this.name = service + "#" + partition + "@" + setup.self;
        this.self = setup.self;
        this.log = requireNonNull(setup.log, "log");
        this.directory = requireNonNull(setup.directory, "directory");
        this.app = requireNonNull(setup.app, "app");
        this.peers = requireNonNull(setup.peers, "peers");
        this.exec = requireNonNull(setup.exec, "exec");
        this.timer = requireNonNull(setup.timer, "timer");
        this.clock = setup.clock;
        this.random = setup.random;
        this.background = setup.background != null ? setup.background : this::onNewThread;
        this.roleChanged = setup.roleChanged;
        this.tookOver = setup.tookOver;
        this.draining = setup.draining;
        this.logAppend = setup.logAppend != null ? setup.logAppend : log::appendAll;
        this.maxBatchBytes = setup.maxBatchBytes;
        this.retention = setup.retention;
    }

    /**
     * The log's records from {@code fromLsn} on for one replication message: at most
     * {@value #MAX_BATCH_RECORDS} of them and at most {@link #maxBatchBytes} by their estimated
     * wire size, but always the first one (a record too large for any frame was refused when written).
     */
    List<LogRecord> batch(long fromLsn) {
        List<LogRecord> records = log.read(fromLsn, MAX_BATCH_RECORDS);
        long bytes = 0;
        for (int i = 0; i < records.size(); i++) {
            bytes += wireBytes(records.get(i));
            if (bytes > maxBatchBytes && i > 0) {
                return records.subList(0, i);
            }
        }
        return records;
    }

    /**
     * Runs {@code action} on every record of the log, in LSN order, reading up to
     * {@value #SCAN_CHUNK_RECORDS} records at a time. A read returns fewer records than asked for when
     * they span more than the log's read limit, so each chunk starts right after the last record read.
     */
    void forEachRecord(Consumer<LogRecord> action) {
        long next = log.startLsn();
        while (next <= log.lastLsn()) {
            List<LogRecord> records = log.read(next, SCAN_CHUNK_RECORDS);
            if (records.isEmpty()) {
                return; // truncated meanwhile
            }
            records.forEach(action);
            next = records.get(records.size() - 1).lsn() + 1;
        }
    }

    /** An upper estimate of {@code record}'s size in a replication message: base64 payload plus fields. */
    static long wireBytes(LogRecord record) {
        return 4L * ((record.payload().length + 2) / 3) + 2L * (record.method().length() + record.origin().length())
                + 256;
    }

    /**
     * Recovery phase 1, internal sync: how far the service really got ({@link InternalSync}: CHECK
     * decides, the committed mark is only a hint; without CHECK every logged write runs again), so
     * nothing is applied twice and nothing applied is forgotten. {@link #applied} may end past the
     * log's end if the log lost its tail; the log then refuses records that cannot be those writes.
     */
    void internalSync() {
        applied = app.hasCheck() ? InternalSync.withCheck(name, log, app::isApplied)
                : InternalSync.withoutCheck(name, log);
        durable = log.lastLsn();   // opening the log forced it: everything in it is durable
        if (applied < log.startLsn() - 1) {
            needsSnapshot = true;
            logger.error("{}: [NEP-SNAP-005] the service applied up to LSN {} but the log starts at {} (earlier records"
                    + " were dropped after a checkpoint): the service lost writes; this replica installs a snapshot"
                    + " from a peer", name, applied, log.startLsn());
        }
        logger.info("{}: internal sync done: log ends at {} (epoch {}), applied up to {}", name, log.lastLsn(),
                log.epoch(), applied);
    }

    /**
     * Persists {@code epoch} on the log's writer, then runs {@code then}: on the executor, before any
     * other task of the partition, but without holding a replication thread while the meta file is
     * forced ({@link SerialExecutor#resumeAfter}). Call it as a task's last step. Whatever must follow
     * the persist (a vote's grant, the ballots of a new epoch, the follower's acknowledgement) goes in
     * {@code then}: nothing leaves the replica claiming an epoch before the epoch survives a crash.
     */
    void persistEpoch(long epoch, Runnable then) {
        assert exec.inExecutor() : "off the partition's executor";
        exec.resumeAfter(log.persistEpochAsync(epoch), then);
    }

    /**
     * Appends {@code record}; when durable, advances {@link #durable} and tells {@link ModeCallbacks#durableAdvanced}
     * on the executor. An append that completes after a {@link #truncateAfter} no longer counts:
     * its record may be gone, or replaced by another at the same LSN that is not durable yet.
     */
    CompletableFuture<Void> append(LogRecord record) {
        return appendAll(List.of(record)).get(0);
    }

    /**
     * {@link #append}s {@code records} in one step, so that the log forces them together: a
     * follower's batch costs one force, not two or more.
     */
    List<CompletableFuture<Void>> appendAll(List<LogRecord> records) {
        long generation = truncations;
        List<CompletableFuture<Void>> appended = logAppend.apply(records);
        List<CompletableFuture<Void>> done = new ArrayList<>(appended.size());
        // the log gives the records it appends together one future: one task on the executor per run of them
        for (int from = 0; from < appended.size(); ) {
            CompletableFuture<Void> future = appended.get(from);
            int to = from;
            while (to + 1 < appended.size() && appended.get(to + 1) == future) {
                to++;
            }
            long lsn = records.get(to).lsn();
            CompletableFuture<Void> advanced = future.whenComplete((v, e) -> exec.execute(() -> {
                if (e == null && generation == truncations && lsn > durable) {
                    durable = lsn;
                    mode.durableAdvanced();
                }
            }));
            done.addAll(java.util.Collections.nCopies(to - from + 1, advanced));
            from = to + 1;
        }
        return done;
    }

    private void onNewThread(Runnable task) {
        Thread thread = new Thread(task, "neptune-snapshot-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The service's digest for a status answer to {@code request}, or "" if it asked for none or has none. */
    String digestFor(PeerMessages.StatusRequest request) {
        return request.skipsDigest() ? "" : app.digest().orElse("");
    }

    /** The peer request {@code method} with {@code message} for this core's partition. */
    PeerRequest request(String method, Object message) {
        return PeerRequest.of(service, partition, method, message);
    }

    /**
     * Fails {@code call} with a {@link TimeoutException} if it has not completed within
     * {@code millis}, as {@link CompletableFuture#orTimeout} does, but timed on this replica's
     * {@link #timer}: a simulation that drives the timer by hand then decides when a call times out.
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> call, long millis) {
        ScheduledFuture<?> timeout;
        try {
            timeout = timer.schedule(() -> call.completeExceptionally(
                    new TimeoutException("no answer within " + millis + " ms")), millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the node is closing and its timer shut down: nothing will wait for the answer
            call.completeExceptionally(new TimeoutException("no answer awaited: the node is closing"));
            return call;
        }
        call.whenComplete((v, e) -> timeout.cancel(false));
        return call;
    }

    /** The replica's checkpoints and snapshot transfer; created on first use. */
    Snapshots snapshots() {
        Snapshots s = snapshots;
        if (s == null) {
            s = new Snapshots(this);
            snapshots = s;
        }
        return s;
    }

    /**
     * The first step of installing a snapshot whose last write is at {@code boundary.lsn()} and whose
     * writes' request ids are {@code requests}: the log drops every record and continues after it,
     * remembering those ids instead of its own, and until {@link #installed} this replica needs a
     * snapshot (a crash now leaves a service that applied less than the log's boundary, which
     * {@link #internalSync} sees, so the install starts over).
     */
    void restartLogFor(LogBoundary boundary, List<KnownRequest> requests) {
        log.restartAfter(boundary, requests);
        truncations++;
        needsSnapshot = true;
        // The snapshot replaces the state those answers came from: a write remembered here may not be in it
        // (level 1: the source wrote it before it had that write), and must run again when it comes back.
        responses.clear();
    }

    /**
     * Answers {@code request} with INVALID_REQUEST if its payload is no request of its method, before
     * anything is logged; returns whether it did.
     */
    boolean refusedUndecodable(RequestMessage request, Consumer<ResponseMessage> reply) {
        String why = app.undecodable(request);
        if (why == null) {
            return false;
        }
        reply.accept(ResponseMessage.error(request.requestId(), Status.INVALID_REQUEST, why));
        return true;
    }

    /**
     * The service now holds a snapshot's state, up to the write at {@code boundary.lsn()}, after
     * {@link #restartLogFor} or in a log that already continued it ({@code keptLog}): the replica
     * counts everything up to it as applied and durable, and applies a kept log's later records as usual.
     */
    void installed(LogBoundary boundary, boolean keptLog) {
        applied = boundary.lsn();
        // a log kept (it continues the snapshot) is durable as far as it was; a restarted one holds nothing yet
        durable = keptLog ? Math.max(durable, boundary.lsn()) : boundary.lsn();
        applying = applied;
        needsSnapshot = false;
        applier.installed();
        releaseWaiters();
    }

    /** Drops the log's records after {@code lsn}, which must not have been applied. */
    void truncateAfter(long lsn) {
        if (lsn < applied) {
            throw new IllegalStateException(name + ": truncating after " + lsn + " below the applied LSN " + applied);
        }
        log.truncateAfter(lsn);
        durable = Math.min(durable, lsn);
        truncations++;
    }

    /**
     * Applies logged, durable writes in LSN order up to {@code target}.
     *
     * <p>A write that fails in storage ({@link StorageException}: a full disk, a broken database
     * file) is not a deterministic result of the write, so it must not count as applied: the other
     * replicas applied it. This replica stops at that write and returns {@code false}; its caller
     * takes it out of service (fail-stop), and a later call retries the same write.
     *
     * @return {@code false} if a write failed in storage; {@link #applied} is then the LSN before it
     */
    boolean applyUpTo(long target) {
        return applyUpTo(target, Long.MAX_VALUE);
    }

    /**
     * Like {@link #applyUpTo(long)}, but returns once applying took {@code budgetNanos} (after at least
     * one write), so the executor can serve other tasks: {@link Applier#applyUpTo(long, long)}.
     */
    boolean applyUpTo(long target, long budgetNanos) {
        return applier.applyUpTo(target, budgetNanos);
    }

    /** The LSN of a write that failed in storage and has not been applied since, or 0. */
    long storageFailedAt() {
        return applier.storageFailedAt();
    }

    /** Remembers the response of a write by its request id. */
    void remember(RequestId id, ResponseMessage response) {
        if (!id.isNone()) {
            responses.put(id, response);
        }
    }

    @Nullable ResponseMessage cached(RequestId id) {
        return id.isNone() ? null : responses.get(id);
    }

    /** What this replica knows of {@code request}'s id: answered, logged or unseen ({@link WriteDedup}). */
    WriteDedup seen(RequestMessage request) {
        return WriteDedup.of(request.requestId(), cached(request.id()), () -> log.lsnOf(request.id()), applied);
    }

    /**
     * How a primary starts on a client write, in every mode with one: a write answered before is answered
     * the same again ({@link WriteDedup.Answer}); one logged here but not applied yet goes to {@code logged}
     * with its LSN, the mode's to handle; a new write gets the WRITE record to log next, at the next LSN of
     * {@code epoch} ({@link WriteDedup#record}). Null if the write was answered or handed to {@code logged}.
     */
    @Nullable LogRecord nextWrite(RequestMessage request, long epoch, Consumer<ResponseMessage> reply,
            LongConsumer logged) {
        WriteDedup known = seen(request);
        if (known instanceof WriteDedup.Answer answer) {
            reply.accept(answer.response());
            return null;
        }
        if (known instanceof WriteDedup.Logged at) {
            logged.accept(at.lsn());
            return null;
        }
        LogRecord record = WriteDedup.record(request, log.lastLsn(), epoch, self);
        traces.logged(record.lsn(), request.metadata());
        return record;
    }

    CompletableFuture<Boolean> awaitVersion(long version, long timeoutMillis) {
        if (state.applied() >= version) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> future = new CompletableFuture<>();
        // Timed from now, not from when the executor gets to it: it may be busy applying a slow write.
        ScheduledFuture<?> timeout;
        try {
            timeout = timer.schedule(() -> future.complete(false), timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(false); // the node is closing: the client reads elsewhere
        }
        future.whenComplete((reached, e) -> timeout.cancel(false));
        exec.execute(() -> {
            if (applied >= version) {
                future.complete(true);
            } else if (!future.isDone()) {
                waiters.add(new Waiter(version, future));
            }
        });
        return future;
    }

    /**
     * The version to report with a read that just ran: at least that of every write whose effects
     * it may have seen, including one being applied right now (the published state lags that).
     */
    long readVersion() {
        return Math.max(applying, state.applied());
    }

    void releaseWaiters() {
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (waiter.future().isDone() || waiter.version() <= applied) {
                waiter.future().complete(true);
                it.remove();
            }
        }
    }

    /** Publishes the current state; announces at once when the role changed. */
    void publish(ReplicaRole role, long boundVersion) {
        ReplicaState previous = state;
        state = new ReplicaState(role, applied, log.epoch(), log.lastLsn(), log.lastEpoch(), boundVersion);
        if (previous.role() != role) {
            logger.info("{}: {} -> {} (epoch {}, log end {}, applied {})", name, previous.role(), role, log.epoch(),
                    log.lastLsn(), applied);
            roleChanged.accept(previous.role(), role);
            peers.announce();
        }
    }

    ReplicaState state() {
        return state;
    }

    /** The answer to a write that reached a replica which is not the primary; names the primary if known. */
    ResponseMessage notPrimary(long requestId, @Nullable NodeId primary) {
        return ResponseMessage.notPrimary(requestId, self + " is not the primary of " + service + "#" + partition
                + (primary != null ? " (primary: " + primary + ")" : " (no primary known)"), primary);
    }
}
