package io.neptune.examples.front;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.Partitions;
import io.neptune.core.ReplicaRole;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.discussion.DiscussionService;
import io.neptune.examples.discussion.DiscussionService.AddMsg;
import io.neptune.examples.discussion.DiscussionService.Added;
import io.neptune.examples.front.FrontService.Page;
import io.neptune.examples.front.FrontService.PageRequest;
import io.neptune.examples.front.FrontService.Part;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The front's fan-out and aggregation on real nodes: with the auction hosted nowhere, a page still
 * answers, in time, with the topic's posts and the auction part reported missing; once a node hosts
 * the auction, the same page is whole.
 */
class FrontServiceIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final CallOptions PAGE_TIMEOUT = CallOptions.timeout(Duration.ofSeconds(3));

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aFailingPartIsReportedMissingAndThePageStillAnswers() {
        HostingConfig one = HostingConfig.builder().replicas(1).workers(2).build();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(),
                    b -> b.host(new FrontService(), one).host(new DiscussionService(), one));
            String topic = "front-it";
            int partition = Partitions.of(topic, 64);
            await().atMost(WAIT).until(() -> node.replicaRoles("discussion", partition).containsValue(ReplicaRole.PRIMARY)
                    && node.client().partitions(FrontService.NAME) == FrontService.PARTITIONS);
            NeptuneHandle handle = NeptuneHandle.create();
            Added added = node.client().call(handle, "discussion", partition, "AddMsg", AccessMode.WRITE,
                    new AddMsg(topic, "ada", "Hello", "first post", null, System.currentTimeMillis()), Added.class);
            assertThat(added.added()).isTrue();

            // answered within the page's 3 s: the inner call to the auction ends by the inherited deadline
            Page partial = page(node, new PageRequest(topic, "books"));
            assertThat(partial.posts()).extracting(DiscussionService.Header::subject).containsExactly("Hello");
            assertThat(partial.items()).isEmpty();
            assertThat(partial.parts()).extracting(Part::name, Part::ok)
                    .containsExactly(tuple(FrontService.POSTS, true), tuple(FrontService.ITEMS, false));
            assertThat(partial.parts().get(1).error()).as("why the items are missing").isNotBlank();

            cluster.add("node-1", ClientConfig.defaults(), b -> b.host(new AuctionService(), one));
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> page(node, new PageRequest(topic, "books")).parts().stream().allMatch(Part::ok));
            Page whole = page(node, new PageRequest(topic, "books"));
            assertThat(whole.posts()).extracting(DiscussionService.Header::subject).containsExactly("Hello");
            assertThat(whole.parts()).extracting(Part::error).containsOnly("");
        }
    }

    private static Page page(NeptuneNode node, PageRequest request) {
        return node.client().call(NeptuneHandle.create(), FrontService.NAME, 0, "Page", AccessMode.READ, request,
                Page.class, PAGE_TIMEOUT);
    }
}
