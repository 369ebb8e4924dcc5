/**
 * The history of a nemesis run, Jepsen-style, and the files that keep it: what the clients did
 * ({@link io.neptune.benchmarks.nemesis.history.History}), what the cluster held once healed
 * ({@link io.neptune.benchmarks.nemesis.history.FinalState}) and what the service promised
 * ({@link io.neptune.benchmarks.nemesis.history.Guarantees}). The harness records them; the
 * checkers in {@code io.neptune.benchmarks.nemesis.check} read them, so any saved run can be
 * checked again with {@code CheckHistory <run dir>}.
 *
 * <h2>Model</h2>
 * Every key is an append-only list of longs. An operation is an invocation by a logical client
 * process followed by at most one completion from the same process: {@code ok} (it took effect),
 * {@code fail} (it definitely did not) or {@code info} (unknown: it may have taken effect, or may
 * still; a crashed client, an {@code OutcomeUnknownException}, a timeout after sending). A process
 * has at most one operation in flight and, unless lines name a {@code session}, is one client
 * session ({@code NeptuneHandle}); a harness that replaces a crashed client's handle gives it a new
 * process number or session name. An invocation without completion counts as {@code info}.
 *
 * <h2>{@value io.neptune.benchmarks.nemesis.history.RunFiles#HISTORY}: JSON Lines</h2>
 * One {@link io.neptune.benchmarks.nemesis.history.Op} per line, UTF-8, fields absent when null:
 * <pre>
 * {"index":0,"process":3,"type":"invoke","f":"append","key":"k7","partition":2,"value":42,"time":1200000,"session":"s3"}
 * {"index":1,"process":1,"type":"invoke","f":"read","key":"k7","partition":2,"time":1300000}
 * {"index":2,"process":3,"type":"ok","f":"append","key":"k7","partition":2,"value":42,"time":5100000,"node":"node-2","version":17,"session":"s3"}
 * {"index":3,"process":1,"type":"ok","f":"read","key":"k7","partition":2,"value":[40,42],"time":5300000,"node":"node-1","version":17}
 * {"index":4,"process":3,"type":"invoke","f":"append","key":"k7","partition":2,"value":43,"time":6000000,"session":"s3"}
 * {"index":5,"process":3,"type":"info","f":"append","key":"k7","partition":2,"value":43,"time":9000000,"session":"s3","error":"timeout"}
 * </pre>
 * <ul>
 *   <li>{@code index}: from 0, strictly increasing down the file;
 *   <li>{@code process}: int; {@code type}: {@code invoke | ok | fail | info};
 *       {@code f}: {@code append | read}; {@code key}: string; {@code partition}: int;
 *   <li>{@code value}: for an append (invocation and completion) the long appended, unique per key;
 *       for a read's {@code ok} completion the list read, in order; absent otherwise;
 *   <li>{@code time}: nanoseconds since the run started, one clock for every process;
 *   <li>optional: {@code node} (the node that answered), {@code version} (the partition version
 *       the response carried), {@code session} (the {@code NeptuneHandle}'s name), {@code error}
 *       (text, for {@code fail} and {@code info}).
 * </ul>
 * {@link io.neptune.benchmarks.nemesis.history.HistoryRecorder} writes it from many threads
 * through one lock that also stamps index and time, so file order is time order; each line is
 * flushed, and a torn last line (a harness killed mid-write) is ignored on reading.
 *
 * <h2>{@value io.neptune.benchmarks.nemesis.history.RunFiles#FINAL_STATE}</h2>
 * <pre>
 * {"replicas":[{"node":"node-1","service":"lists","partition":2,"version":17,"digest":"9f2c…"}, …],
 *  "reads":[{"node":"node-1","key":"k7","partition":2,"value":[40,42]}, …]}
 * </pre>
 * {@code replicas}: every replica after healing ({@code ClusterAdmin.replicas}); {@code reads}: each
 * key's list read from each replica directly. Either may be empty or absent; the checkers that need
 * it then answer UNKNOWN. Other fields (e.g. the faults applied) are ignored.
 *
 * <h2>{@value io.neptune.benchmarks.nemesis.history.RunFiles#GUARANTEES}</h2>
 * <pre>
 * {"level":"LEVEL_3","mode":"MAJORITY","stalenessMillis":1000,"slackMillis":1600,"linearizableReads":false}
 * </pre>
 */
@NullMarked
package io.neptune.benchmarks.nemesis.history;

import org.jspecify.annotations.NullMarked;
