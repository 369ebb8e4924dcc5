package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.DirectoryPage;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thin client's yellow page. The client joins no JGroups channel, so every refresh interval it
 * asks one node for that node's yellow page over the request port ({@link DirectoryPage}) and makes
 * its own page the same: it takes every announcement in it (a newer sequence counts as hearing the
 * node) and drops the nodes the page no longer lists. Its page is then as fresh as that node's, one
 * interval later; when no node answers, entries expire as a member's do.
 *
 * <p>The node it asks (its source) keeps one connection to it and is kept while it answers and is
 * not draining. Otherwise the next source is a node of the page (in random order, draining ones last),
 * and when none of them answers, a seed address: each seed's name is resolved again every time, so a
 * DNS name listing the nodes (a Kubernetes headless Service) follows the cluster as it scales.
 *
 * <p>Thread-safety: thread-safe; all work runs on the follower's one thread, which may block.
 */
final class YellowPageFollower implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(YellowPageFollower.class);
    private static final byte[] NO_ARGUMENTS = "{}".getBytes(StandardCharsets.UTF_8);

    private final NodeId self;
    private final YellowPage yellowPage;
    private final Connector connector;
    private final List<Seed> seeds;
    private final Duration refresh;
    private final Duration answerTimeout;
    private final ScheduledExecutorService thread;
    private final CompletableFuture<Void> firstPage = new CompletableFuture<>();
    // the fields below are touched by the follower's thread only, but for lastFailures
    private @Nullable Channel source;
    private String sourceName = "";
    private long requestIds;
    /**
     * What went wrong in the last round that found no node, or empty; logged when it changes. Volatile:
     * {@link #awaitFirstPage} reads it on the caller's thread.
     */
    private volatile List<String> lastFailures = List.of();

    /**
     * Creates a follower that starts with no source.
     *
     * @param seeds where to ask first, and again whenever no node of the page answers
     * @param refresh how often to ask
     * @param answerTimeout how long a connection attempt, and then an answer, may take
     */
    YellowPageFollower(NodeId self, YellowPage yellowPage, Connector connector, List<Seed> seeds, Duration refresh,
            Duration answerTimeout) {
        this.self = requireNonNull(self, "self");
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.connector = requireNonNull(connector, "connector");
        this.seeds = List.copyOf(seeds);
        this.refresh = requireNonNull(refresh, "refresh");
        this.answerTimeout = requireNonNull(answerTimeout, "answerTimeout");
        this.thread = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("neptune-" + self
                + "-directory", true));
    }

    /** Asks for the page now and then every refresh interval, until closed. */
    void start() {
        thread.scheduleWithFixedDelay(this::refresh, 0, refresh.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Waits until a first page came in.
     *
     * @throws NeptuneException if none came within {@code timeout}, saying what every source answered
     */
    void awaitFirstPage(Duration timeout) {
        try {
            firstPage.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new NeptuneException(self + ": no node answered with the yellow page within " + timeout.toMillis()
                    + " ms (tried: " + String.join("; ", lastFailures) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NeptuneException(self + ": interrupted while waiting for the yellow page");
        }
    }

    private void refresh() {
        try {
            yellowPage.expire(refresh);
            List<String> failures = new ArrayList<>();
            Channel current = source;
            if (current != null && current.isActive() && ask(current, sourceName, failures)) {
                return;
            }
            closeSource();
            for (Candidate candidate : candidates(failures)) {
                if (follow(candidate, failures)) {
                    return;
                }
            }
            if (!failures.equals(lastFailures)) {
                logger.warn("{}: no node answered with the yellow page; {} of its entries expire unless one does ({})",
                        self, yellowPage.announcements().size(), String.join("; ", failures));
            }
            lastFailures = List.copyOf(failures);
        } catch (RuntimeException e) { // the task must go on: a scheduled task that throws never runs again
            logger.warn("{}: refreshing the yellow page failed", self, e);
        }
    }

    /**
     * The nodes of the page in random order, draining ones last, then every address of every seed; a
     * seed that resolves to nothing is said in {@code failures}.
     */
    private List<Candidate> candidates(List<String> failures) {
        List<Announcement> known = new ArrayList<>(yellowPage.announcements());
        Collections.shuffle(known);
        known.sort(Comparator.comparing(Announcement::draining));
        List<Candidate> candidates = new ArrayList<>();
        for (Announcement announcement : known) {
            candidates.add(Candidate.node(announcement));
        }
        for (Seed seed : seeds) {
            List<InetSocketAddress> addresses = new ArrayList<>(seed.resolve());
            Collections.shuffle(addresses);
            if (addresses.isEmpty()) {
                failures.add("seed " + seed + ": its name resolves to no address");
            }
            for (InetSocketAddress address : addresses) {
                candidates.add(Candidate.seed(address));
            }
        }
        return candidates;
    }

    /** Connects to {@code candidate} and asks it; on success it becomes the source. */
    private boolean follow(Candidate candidate, List<String> failures) {
        NodeId node = candidate.node();
        ChannelFuture connect = node == null ? connector.connect(candidate.address())
                : connector.connect(node, candidate.address(), candidate.toString());
        if (!connect.awaitUninterruptibly(answerTimeout.toMillis() + 1_000)) {
            connect.channel().close();
            failures.add(candidate + ": no connection within " + answerTimeout.toMillis() + " ms");
            return false;
        }
        if (!connect.isSuccess()) {
            failures.add(candidate + ": " + connect.cause().getMessage());
            return false;
        }
        Channel channel = connect.channel();
        if (!ask(channel, candidate.toString(), failures)) {
            channel.close();
            return false;
        }
        source = channel;
        sourceName = candidate.toString();
        logger.info("{}: follows the yellow page of {} ({} nodes)", self, candidate, yellowPage.announcements().size());
        return true;
    }

    /** Asks for the page on {@code channel}; takes it in and returns true, or says why not in {@code failures}. */
    private boolean ask(Channel channel, String target, List<String> failures) {
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, answerTimeout.toMillis());
        RequestMessage request = new RequestMessage(++requestIds, DirectoryPage.SERVICE, 0, DirectoryPage.METHOD,
                AccessMode.READ, timeoutMillis, 0, RequestId.NONE, NO_ARGUMENTS);
        PendingCall call = new PendingCall(request, target);
        channel.writeAndFlush(call).addListener(call);
        try {
            ResponseMessage response = call.get(timeoutMillis, TimeUnit.MILLISECONDS);
            if (response.status() != Status.OK) {
                failures.add(target + ": " + response.status() + " " + response.errorMessage());
                return false;
            }
            take(Json.mapper().readValue(response.payload(), DirectoryPage.class));
            return true;
        } catch (TimeoutException e) {
            call.cancel(false);
            failures.add(target + ": no answer within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            failures.add(target + ": " + (cause != null ? cause : e).getMessage());
        } catch (IOException | RuntimeException e) { // an undecodable page, or one the yellow page refuses
            failures.add(target + ": its yellow page cannot be read: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(target + ": interrupted");
        }
        return false;
    }

    /** Makes the page {@code page}; a draining source is left for another at the next refresh. */
    private void take(DirectoryPage page) {
        Set<NodeId> listed = new HashSet<>();
        boolean sourceDraining = false;
        for (Announcement announcement : page.announcements()) {
            NodeId node = NodeId.of(announcement.node());
            listed.add(node);
            yellowPage.update(announcement);
            sourceDraining |= announcement.node().equals(page.node()) && announcement.draining();
        }
        for (Announcement announcement : yellowPage.announcements()) {
            NodeId node = NodeId.of(announcement.node());
            if (!listed.contains(node)) {
                yellowPage.remove(node, "no longer in the yellow page of " + page.node());
            }
        }
        if (!lastFailures.isEmpty()) {
            logger.info("{}: {} answered with the yellow page again", self, page.node());
            lastFailures = List.of();
        }
        firstPage.complete(null);
        if (sourceDraining) {
            closeSource();
        }
    }

    private void closeSource() {
        Channel current = source;
        source = null;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(answerTimeout.toMillis() + 2_000, TimeUnit.MILLISECONDS)) {
                logger.warn("{}: the yellow-page follower did not stop in time", self);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeSource();
    }

    /** Where to ask: a node of the page (whose certificate must name it) or a seed address (any node). */
    private record Candidate(@Nullable NodeId node, InetSocketAddress address) {
        static Candidate node(Announcement announcement) {
            return new Candidate(NodeId.of(announcement.node()), new InetSocketAddress(announcement.host(),
                    announcement.tcpPort()));
        }

        static Candidate seed(InetSocketAddress address) {
            return new Candidate(null, address);
        }

        @Override
        public String toString() {
            String at = address.getHostString() + ":" + address.getPort();
            return node == null ? "seed " + at : node + "@" + at;
        }
    }
}
