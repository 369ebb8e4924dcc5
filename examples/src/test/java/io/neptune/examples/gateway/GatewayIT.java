package io.neptune.examples.gateway;

import static io.neptune.examples.gateway.GatewayCluster.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.Partitions;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.discussion.Texts;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the gateway against an in-JVM cluster (two nodes hosting the discussion, auction
 * and cache services with two replicas per partition, and a gateway node hosting nothing),
 * including every error case, and that bad input changes no data.
 */
class GatewayIT {
    private static GatewayCluster cluster;
    private static Http http;

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void startCluster() {
        cluster = GatewayCluster.start(2, b -> b.callTimeout(Duration.ofSeconds(10)));
        http = new Http(cluster.baseUrl(), Optional.of("gateway-it-" + UUID.randomUUID()));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ---- service classes -----------------------------------------------------------------------

    @Test
    void theAdminsClassHeaderTravelsWithTheCallAndABadOneIsRefusedWith400() {
        String key = unique("classy");
        Reply invalid = http.send(http.asAdmin("/api/cache/" + key).header("X-Neptune-Class", "gold class").GET());
        assertThat(invalid.status()).as(invalid.toString()).isEqualTo(400);
        assertThat(invalid.error()).isEqualTo("request class: service class name 'gold class' (expected: 1 to 64"
                + " letters, digits, '-', '_' or '.')");
        // a valid name reaches the node, which declares no such class: nothing runs
        Reply unknown = http.send(http.asAdmin("/api/cache/" + key).header("X-Neptune-Class", "platinum")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofByteArray(new byte[] {'v'})));
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(400);
        assertThat(unknown.error()).contains("unknown service class 'platinum'").contains("[default]");
        assertThat(http.get("/api/cache/" + key).status()).as("the refused write changed nothing").isEqualTo(404);
        Reply plain = http.send(http.asAdmin("/api/cache/" + key).header("X-Neptune-Class", "default").GET());
        assertThat(plain.status()).as(plain.toString()).isEqualTo(404);
    }

    @Test
    void anAnonymousCallersClassHeaderIsIgnored() {
        String key = unique("classless");
        // the same headers as above, without a token: the calls run in the default class the nodes declare
        Reply write = http.send(http.request("/api/cache/" + key).header("X-Neptune-Class", "platinum")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofByteArray(new byte[] {'v'})));
        assertThat(write.status()).as(write.toString()).isEqualTo(204);
        Reply read = http.send(http.request("/api/cache/" + key).header("X-Neptune-Class", "gold class").GET());
        assertThat(read.status()).as(read.toString()).isEqualTo(200);
        assertThat(read.body()).containsExactly('v');
    }

    // ---- discussion ----------------------------------------------------------------------------

    @Test
    void discussionPostsRepliesAndShowsTheThreadInReplyToOrder() {
        String topic = unique("topic");
        Reply first = http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"ada\",\"subject\":\"First\",\"body\":\"hello\"}");
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        long firstId = first.json().get("id").asLong();
        assertThat(first.json().get("version").asLong()).isPositive();
        Reply second = http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"bob\",\"subject\":\"Second\",\"body\":\"another thread\"}");
        long secondId = second.json().get("id").asLong();
        Reply reply = http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"grace\",\"subject\":\"Re: First\",\"body\":\"a reply\",\"parentId\":" + firstId + "}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        long replyId = reply.json().get("id").asLong();
        assertThat(reply.json().fieldNames()).toIterable().containsExactly("id", "version");

        Reply headers = http.get("/api/discussion/" + topic + "/headers");
        assertThat(headers.status()).isEqualTo(200);
        JsonNode json = headers.json();
        assertThat(json.fieldNames()).toIterable().containsExactly("topic", "version", "headers");
        assertThat(json.get("topic").asText()).isEqualTo(topic);
        assertThat(json.get("version").asLong()).isGreaterThanOrEqualTo(reply.json().get("version").asLong());
        List<Long> ids = new ArrayList<>();
        json.get("headers").forEach(h -> ids.add(h.get("id").asLong()));
        assertThat(ids).containsExactly(firstId, replyId, secondId);
        JsonNode replyHeader = json.get("headers").get(1);
        assertThat(replyHeader.fieldNames()).toIterable()
                .containsExactly("id", "parentId", "author", "subject", "postedAt", "depth");
        assertThat(replyHeader.get("parentId").asLong()).isEqualTo(firstId);
        assertThat(replyHeader.get("depth").asInt()).isEqualTo(1);
        assertThat(json.get("headers").get(0).get("parentId").isNull()).isTrue();
        assertThat(replyHeader.get("postedAt").asLong()).isCloseTo(System.currentTimeMillis(),
                org.assertj.core.data.Offset.offset(120_000L));

        Reply message = http.get("/api/discussion/" + topic + "/messages/" + replyId);
        assertThat(message.status()).isEqualTo(200);
        assertThat(message.json().fieldNames()).toIterable()
                .containsExactly("id", "parentId", "author", "subject", "body", "postedAt", "version");
        assertThat(message.json().get("body").asText()).isEqualTo("a reply");
        assertThat(message.json().get("author").asText()).isEqualTo("grace");
        assertThat(message.json().get("parentId").asLong()).isEqualTo(firstId);

        Reply absent = http.get("/api/discussion/" + topic + "/messages/999999999");
        assertThat(absent.status()).isEqualTo(404);
        assertThat(absent.error()).contains("999999999");
        assertThat(http.get("/api/discussion/" + topic + "/messages/abc").status()).isEqualTo(400);
        Reply empty = http.get("/api/discussion/" + unique("empty") + "/headers");
        assertThat(empty.status()).isEqualTo(200);
        assertThat(empty.json().get("headers")).isEmpty();
    }

    @Test
    void badPostsAreRefusedWith400AndChangeNoData() {
        String topic = unique("strict");
        Reply first = http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"ada\",\"subject\":\"Keep\",\"body\":\"the only message\"}");
        assertThat(first.status()).isEqualTo(201);
        String before = http.get("/api/discussion/" + topic + "/headers").json().get("headers").toString();
        String digestBefore = primaryDigest("discussion", Partitions.of(topic, 64));

        String path = "/api/discussion/" + topic + "/messages";
        String oversize = "x".repeat(Texts.MAX_TEXT_BYTES + 1);
        List<String> bad = List.of(
                "{\"author\":\"ada\",\"subject\":\"s\",\"body\":",                       // malformed JSON
                "not json at all",                                                          // malformed JSON
                "[1, 2, 3]",                                                                // not an object
                "{\"subject\":\"s\",\"body\":\"b\"}",                                      // missing author
                "{\"author\":5,\"subject\":\"s\",\"body\":\"b\"}",                         // wrongly typed
                "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"b\",\"parentId\":\"one\"}", // wrongly typed
                "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"b\",\"parentId\":1.5}",  // not an integer
                "{\"author\":\"\",\"subject\":\"s\",\"body\":\"b\"}",                      // blank author
                "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"" + oversize + "\"}",  // text over 64 KiB
                "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"b\",\"parentId\":987654321}", // unknown parent
                "");                                                                        // no body
        for (String body : bad) {
            Reply reply = http.post(path, body);
            assertThat(reply.status()).as(body.length() > 80 ? body.substring(0, 80) : body).isEqualTo(400);
            assertThat(reply.error()).isNotBlank();
        }
        Reply unknownParent = http.post(path, "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"b\",\"parentId\":987654321}");
        assertThat(unknownParent.error()).contains("parentId");
        assertThat(http.post(path, "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"" + oversize + "\"}").error())
                .contains("body");

        assertThat(http.get("/api/discussion/" + topic + "/headers").json().get("headers").toString()).isEqualTo(before);
        assertThat(primaryDigest("discussion", Partitions.of(topic, 64))).isEqualTo(digestBefore);
    }

    // ---- idempotency keys ----------------------------------------------------------------------

    @Test
    void aPostRetriedWithItsIdempotencyKeyRunsOnceAndAnswersAsTheFirstTime() {
        String path = "/api/discussion/" + unique("retried") + "/messages";
        String json = "{\"author\":\"ada\",\"subject\":\"Once\",\"body\":\"posted once, sent twice\"}";
        String key = UUID.randomUUID().toString();
        Reply first = http.post(path, json, key);
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        Reply retry = http.post(path, json, key);
        assertThat(retry.status()).as(retry.toString()).isEqualTo(201);
        assertThat(retry.json()).as("the retry answers the first post").isEqualTo(first.json());
        Reply withoutKey = http.post(path, json);
        assertThat(withoutKey.json().get("id")).as("no key: a new message").isNotEqualTo(first.json().get("id"));
        // the same key on another request (here another body) is another request, never the first's answer
        Reply otherBody = http.post(path, json.replace("posted once", "another"), key);
        assertThat(otherBody.status()).as(otherBody.toString()).isEqualTo(201);
        assertThat(otherBody.json().get("id")).isNotEqualTo(first.json().get("id"));
        assertThat(http.get(path.replace("/messages", "/headers")).json().get("headers")).hasSize(3);
    }

    @Test
    void aBidRetriedWithItsIdempotencyKeyIsPlacedOnce() {
        Reply item = http.post("/api/auction/categories/" + unique("retried") + "/items",
                "{\"title\":\"Lamp\",\"seller\":\"sam\",\"startingPrice\":100}");
        String bids = "/api/auction/items/" + item.json().get("id").asText() + "/bids";
        String key = UUID.randomUUID().toString();
        Reply first = http.post(bids, "{\"bidder\":\"kim\",\"amount\":150}", key);
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        // without the key this retry is a bid no higher than the highest, refused with 409
        Reply retry = http.post(bids, "{\"bidder\":\"kim\",\"amount\":150}", key);
        assertThat(retry.status()).as(retry.toString()).isEqualTo(201);
        assertThat(retry.json()).isEqualTo(first.json());
    }

    @Test
    void aBadIdempotencyKeyIsRefusedWith400AndChangesNoData() {
        String topic = unique("badkey");
        String path = "/api/discussion/" + topic + "/messages";
        String json = "{\"author\":\"ada\",\"subject\":\"s\",\"body\":\"b\"}";
        for (String key : List.of("", "k".repeat(256), "tab\there")) {
            Reply reply = http.send(http.request(path).header("Content-Type", "application/json")
                    .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(json)));
            assertThat(reply.status()).as("key '%s': %s", key, reply).isEqualTo(400);
            assertThat(reply.error()).startsWith("Idempotency-Key: ");
        }
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) { // Java's client would not send these bytes
            byte[] utf8Key = ("POST " + path + " HTTP/1.1\r\nHost: " + raw.host() + "\r\nContent-Type: application/json\r\n"
                    + "Idempotency-Key: caf\u00e9\r\nContent-Length: " + json.length() + "\r\n\r\n" + json)
                    .getBytes(StandardCharsets.UTF_8);
            RawHttp.Response reply = raw.write(utf8Key).read();
            assertThat(reply.status()).as(reply.body()).isEqualTo(400);
            assertThat(reply.body()).contains("Idempotency-Key: character");
        }
        assertThat(http.get("/api/discussion/" + topic + "/headers").json().get("headers")).isEmpty();
    }

    // ---- auction -------------------------------------------------------------------------------

    @Test
    void auctionOffersListsAndBidsWith409ForALowBid() {
        String category = unique("books");
        Reply added = http.post("/api/auction/categories/" + category + "/items",
                "{\"title\":\"Dune\",\"seller\":\"frank\",\"startingPrice\":500}");
        assertThat(added.status()).as(added.toString()).isEqualTo(201);
        assertThat(added.json().fieldNames()).toIterable().containsExactly("id", "version");
        String itemId = added.json().get("id").asText();
        assertThat(itemId).startsWith(Partitions.of(category, 64) + "-");

        Reply item = http.get("/api/auction/items/" + itemId);
        assertThat(item.status()).isEqualTo(200);
        assertThat(item.json().fieldNames()).toIterable().containsExactly("id", "category", "title", "seller",
                "highestBid", "highestBidder", "bidCount", "version");
        assertThat(item.json().get("title").asText()).isEqualTo("Dune");
        assertThat(item.json().get("bidCount").asInt()).isZero();

        Reply tooLowFirst = http.post("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"ann\",\"amount\":499}");
        assertThat(tooLowFirst.status()).isEqualTo(409);
        assertThat(tooLowFirst.json().fieldNames()).toIterable().containsExactly("error");
        assertThat(tooLowFirst.error()).contains("at least the starting price 500");
        Reply bid = http.post("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"ann\",\"amount\":600}");
        assertThat(bid.status()).as(bid.toString()).isEqualTo(201);
        assertThat(bid.json().fieldNames()).toIterable().containsExactly("highestBid", "version");
        assertThat(bid.json().get("highestBid").asLong()).isEqualTo(600);
        Reply equal = http.post("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"ben\",\"amount\":600}");
        assertThat(equal.status()).isEqualTo(409);
        assertThat(equal.error()).contains("600");
        Reply higher = http.post("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"ben\",\"amount\":750}");
        assertThat(higher.status()).isEqualTo(201);

        JsonNode after = http.get("/api/auction/items/" + itemId).json();
        assertThat(after.get("highestBid").asLong()).isEqualTo(750);
        assertThat(after.get("highestBidder").asText()).isEqualTo("ben");
        assertThat(after.get("bidCount").asInt()).isEqualTo(2);
        assertThat(after.get("version").asLong()).isGreaterThanOrEqualTo(higher.json().get("version").asLong());

        Reply items = http.get("/api/auction/categories/" + category + "/items");
        assertThat(items.status()).isEqualTo(200);
        assertThat(items.json().fieldNames()).toIterable().containsExactly("category", "items");
        assertThat(items.json().get("items")).hasSize(1);
        assertThat(items.json().get("items").get(0).get("id").asText()).isEqualTo(itemId);

        Reply categories = http.get("/api/auction/categories");
        assertThat(categories.status()).isEqualTo(200);
        assertThat(categories.json().fieldNames()).toIterable().containsExactly("categories", "failedPartitions");
        assertThat(categories.json().get("failedPartitions")).isEmpty();
        JsonNode mine = null;
        for (JsonNode c : categories.json().get("categories")) {
            if (c.get("name").asText().equals(category)) {
                mine = c;
            }
        }
        assertThat(mine).as("category %s in %s", category, categories).isNotNull();
        assertThat(mine.get("itemCount").asInt()).isEqualTo(1);
    }

    @Test
    void badBidsAndItemsAreRefusedAndChangeNoData() {
        String category = unique("games");
        String itemId = http.post("/api/auction/categories/" + category + "/items",
                "{\"title\":\"Go board\",\"seller\":\"sai\",\"startingPrice\":100}").json().get("id").asText();
        assertThat(http.post("/api/auction/items/" + itemId + "/bids", "{\"bidder\":\"ann\",\"amount\":200}").status())
                .isEqualTo(201);
        int partition = Partitions.of(category, 64);
        String itemBefore = withoutVersion(http.get("/api/auction/items/" + itemId).json()).toString();
        String digestBefore = primaryDigest("auction", partition);

        String bids = "/api/auction/items/" + itemId + "/bids";
        for (String body : List.of("{\"bidder\":\"x\",\"amount\":\"ten\"}", "{\"bidder\":\"x\"}",
                "{\"amount\":300}", "{\"bidder\":\"x\",\"amount\":3.5}", "{\"bidder\":\"x\",\"amount\":-5}",
                "{\"bidder\":\"x\",\"amount\":99999999999999999999999}", "{oops",
                "{\"bidder\":\"x\",\"amount\":" + (1L << 53) + "}")) {
            Reply reply = http.post(bids, body);
            assertThat(reply.status()).as(body).isEqualTo(400);
            assertThat(reply.error()).isNotBlank();
        }
        assertThat(http.post(bids, "{\"bidder\":\"x\",\"amount\":" + (1L << 53) + "}").error())
                .contains("amount").contains(String.valueOf((1L << 53) - 1));
        Reply low = http.post(bids, "{\"bidder\":\"x\",\"amount\":150}");
        assertThat(low.status()).isEqualTo(409);
        for (String alias : List.of("+" + itemId, "0" + itemId, itemId.replace("-", "-0"), itemId.replace("-", "-+"))) {
            assertThat(http.get("/api/auction/items/" + alias).status()).as(alias).isEqualTo(400);
            assertThat(http.post("/api/auction/items/" + alias + "/bids", "{\"bidder\":\"x\",\"amount\":900}").status())
                    .as(alias).isEqualTo(400);
        }
        Reply unknownItem = http.post("/api/auction/items/" + partition + "-987654321/bids",
                "{\"bidder\":\"x\",\"amount\":300}");
        assertThat(unknownItem.status()).isEqualTo(400);
        assertThat(unknownItem.error()).contains("987654321");
        assertThat(http.post("/api/auction/items/999-1/bids", "{\"bidder\":\"x\",\"amount\":300}").status())
                .isEqualTo(400);
        assertThat(http.post("/api/auction/items/not-an-id/bids", "{\"bidder\":\"x\",\"amount\":300}").status())
                .isEqualTo(400);
        String items = "/api/auction/categories/" + category + "/items";
        for (String body : List.of("{\"title\":\"t\",\"seller\":\"s\",\"startingPrice\":-1}",
                "{\"title\":\"t\",\"seller\":\"s\"}", "{\"title\":\"t\",\"seller\":\"s\",\"startingPrice\":\"1\"}",
                "{\"title\":\"" + "t".repeat(Texts.MAX_NAME_LENGTH + 1) + "\",\"seller\":\"s\",\"startingPrice\":1}")) {
            assertThat(http.post(items, body).status()).as(body).isEqualTo(400);
        }

        assertThat(withoutVersion(http.get("/api/auction/items/" + itemId).json()).toString())
                .isEqualTo(itemBefore);
        assertThat(http.get(items).json().get("items")).hasSize(1);
        assertThat(primaryDigest("auction", partition)).isEqualTo(digestBefore);

        assertThat(http.get("/api/auction/items/" + partition + "-987654321").status()).isEqualTo(404);
        assertThat(http.get("/api/auction/items/999-1").status()).isEqualTo(404);
        assertThat(http.get("/api/auction/items/garbage").status()).isEqualTo(400);
    }

    @Test
    void refusedBidsAndRepliesTakeNoLsn() {
        String category = unique("versions");
        int partition = Partitions.of(category, 64);
        String unbid = http.post("/api/auction/categories/" + category + "/items",
                "{\"title\":\"Lamp\",\"seller\":\"sam\",\"startingPrice\":1000}").json().get("id").asText();
        String bid = http.post("/api/auction/categories/" + category + "/items",
                "{\"title\":\"Desk\",\"seller\":\"sam\",\"startingPrice\":10}").json().get("id").asText();
        assertThat(http.post("/api/auction/items/" + bid + "/bids", "{\"bidder\":\"a\",\"amount\":50}").status())
                .isEqualTo(201);
        String topic = unique("versions");
        int topicPartition = Partitions.of(topic, 64);
        long first = http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"a\",\"subject\":\"s\",\"body\":\"b\"}").json().get("id").asLong();
        long auctionBefore = primaryVersion("auction", partition);
        long discussionBefore = primaryVersion("discussion", topicPartition);

        assertThat(http.post("/api/auction/items/" + unbid + "/bids", "{\"bidder\":\"b\",\"amount\":999}").status())
                .isEqualTo(409);
        assertThat(http.post("/api/auction/items/" + bid + "/bids", "{\"bidder\":\"b\",\"amount\":50}").status())
                .isEqualTo(409);
        assertThat(http.post("/api/auction/items/" + bid + "/bids", "{\"bidder\":\"b\",\"amount\":20}").status())
                .isEqualTo(409);
        // first - 1 is at or below the partition's version and no message of this topic.
        assertThat(http.post("/api/discussion/" + topic + "/messages", "{\"author\":\"a\",\"subject\":\"s\","
                + "\"body\":\"b\",\"parentId\":" + (first - 1) + "}").status()).isEqualTo(400);

        assertThat(primaryVersion("auction", partition)).isEqualTo(auctionBefore);
        assertThat(primaryVersion("discussion", topicPartition)).isEqualTo(discussionBefore);
        assertThat(http.get("/api/auction/items/" + bid).json().get("version").asLong()).isEqualTo(auctionBefore);
    }

    // ---- cache ---------------------------------------------------------------------------------

    @Test
    void cacheStoresBytesAndRefusesOversizeValues() {
        String key = unique("key");
        byte[] value = {0, 1, 2, (byte) 0xff, 'n', 'e', 'p'};
        Reply put = http.put("/api/cache/" + key, value);
        assertThat(put.status()).isEqualTo(204);
        assertThat(put.body()).isEmpty();
        Reply get = http.get("/api/cache/" + key);
        assertThat(get.status()).isEqualTo(200);
        assertThat(get.body()).containsExactly(value);
        assertThat(get.header("Content-Type")).hasValue("application/octet-stream");

        Reply oversize = http.put("/api/cache/" + key, new byte[CacheService.MAX_VALUE_BYTES + 1]);
        assertThat(oversize.status()).isEqualTo(413);
        assertThat(oversize.error()).contains("value");
        assertThat(http.put("/api/cache/" + key, new byte[100 * 1024]).status()).isEqualTo(413);
        assertThat(http.put("/api/cache/" + key, new byte[HttpGateway.DEFAULT_MAX_BODY_BYTES + 1]).status())
                .isEqualTo(413);
        assertThat(http.put("/api/cache/" + "k".repeat(CacheService.MAX_KEY_LENGTH + 1), value).status()).isEqualTo(400);
        assertThat(http.get("/api/cache/" + key).body()).containsExactly(value);

        Reply absent = http.get("/api/cache/" + unique("absent"));
        assertThat(absent.status()).isEqualTo(404);
        assertThat(absent.error()).contains("absent");

        String spaced = unique("with space+plus/slash");
        String encoded = java.net.URLEncoder.encode(spaced, StandardCharsets.UTF_8).replace("+", "%20");
        assertThat(http.put("/api/cache/" + encoded, "v".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(204);
        assertThat(http.get("/api/cache/" + encoded).text()).isEqualTo("v");
    }

    // ---- front (multi-tier) --------------------------------------------------------------------

    /**
     * The front's page holds the topic's post and the category's item, fetched by its inner calls
     * (which have their own session: a replica may lag, so the page is awaited), both parts ok, and
     * the answer continues the request's trace.
     */
    @Test
    void frontPageAggregatesTheDiscussionAndTheAuctionAndAnswersItsTrace() {
        String topic = unique("front-topic");
        String category = unique("front-books");
        assertThat(http.post("/api/discussion/" + topic + "/messages",
                "{\"author\":\"ada\",\"subject\":\"On the front\",\"body\":\"hello\"}").status()).isEqualTo(201);
        assertThat(http.post("/api/auction/categories/" + category + "/items",
                "{\"title\":\"Dune\",\"seller\":\"frank\",\"startingPrice\":500}").status()).isEqualTo(201);
        String traceId = "0af7651916cd43dd8448eb211c80319c";
        String path = "/api/front?topic=" + topic + "&category=" + category;
        Reply[] page = new Reply[1];
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    page[0] = http.send(http.request(path).header("traceparent", "00-" + traceId
                            + "-b7ad6b7169203331-01").GET());
                    return page[0].status() == 200 && page[0].json().get("posts").size() == 1
                            && page[0].json().get("items").size() == 1;
                });
        JsonNode json = page[0].json();
        assertThat(json.fieldNames()).toIterable().containsExactly("topic", "posts", "category", "items", "parts");
        assertThat(json.get("posts").get(0).get("subject").asText()).isEqualTo("On the front");
        assertThat(json.get("items").get(0).get("title").asText()).isEqualTo("Dune");
        assertThat(json.get("parts")).extracting(part -> part.get("name").asText() + " " + part.get("ok").asBoolean())
                .containsExactly("discussion true", "auction true");
        assertThat(page[0].header("traceparent")).hasValueSatisfying(t -> assertThat(t).startsWith("00-" + traceId
                + "-"));

        Reply missing = http.get("/api/front?topic=" + topic);
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.error()).startsWith("category: missing");
    }

    // ---- sessions and protocol errors ----------------------------------------------------------

    @Test
    void issuesASessionWhenAbsentAndHonoursTheCookieAndTheHeader() {
        Http anonymous = new Http(cluster.baseUrl(), Optional.empty());
        Reply first = anonymous.get("/api/discussion/" + unique("s") + "/headers");
        assertThat(first.status()).isEqualTo(200);
        String issued = first.header("X-Neptune-Session").orElseThrow();
        assertThat(first.header("Set-Cookie")).hasValueSatisfying(c -> assertThat(c)
                .startsWith("neptune-session=" + issued).contains("Path=/").containsIgnoringCase("HttpOnly"));

        Reply withCookie = anonymous.send(anonymous.request("/api/discussion/" + unique("s") + "/headers")
                .header("Cookie", "neptune-session=" + issued).GET());
        assertThat(withCookie.status()).isEqualTo(200);
        assertThat(withCookie.header("Set-Cookie")).isEmpty();
        assertThat(withCookie.header("X-Neptune-Session")).isEmpty();
        Reply withHeader = http.get("/api/discussion/" + unique("s") + "/headers");
        assertThat(withHeader.header("Set-Cookie")).isEmpty();

        // The session's handle makes a read see at least the version of the session's own write.
        String topic = unique("mine");
        Http session = new Http(cluster.baseUrl(), Optional.of(issued));
        for (int i = 0; i < 5; i++) {
            Reply posted = session.post("/api/discussion/" + topic + "/messages",
                    "{\"author\":\"me\",\"subject\":\"n" + i + "\",\"body\":\"\"}");
            JsonNode headers = session.get("/api/discussion/" + topic + "/headers").json();
            assertThat(headers.get("version").asLong()).isGreaterThanOrEqualTo(posted.json().get("version").asLong());
            assertThat(headers.get("headers")).hasSize(i + 1);
        }
    }

    @Test
    void unknownRoutesWrongMethodsAndOversizeBodiesAnswerJsonErrors() {
        Reply unknown = http.get("/api/nothing/here");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error()).contains("/api/nothing/here");
        Reply wrongMethod = http.delete("/api/cache/some-key");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.header("Allow")).hasValue("GET, PUT");
        assertThat(wrongMethod.error()).contains("DELETE");

        byte[] huge = new byte[HttpGateway.DEFAULT_MAX_BODY_BYTES + 1];
        Arrays.fill(huge, (byte) 'a');
        Reply tooLarge = http.post("/api/discussion/" + unique("big") + "/messages", huge);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.error()).contains(String.valueOf(HttpGateway.DEFAULT_MAX_BODY_BYTES));
        assertThat(http.get("/api/discussion/" + unique("after") + "/headers").status()).isEqualTo(200);

        Reply index = http.get("/");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.header("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(index.text()).contains("<script src=\"/app.js\">");
        assertThat(http.get("/app.js").status()).isEqualTo(200);
        assertThat(http.get("/style.css").status()).isEqualTo(200);
        assertThat(http.get("/../pom.xml").status()).isEqualTo(404);
    }

    // ---- admin ---------------------------------------------------------------------------------

    /** The node's announced admin URL answers /health/ready and /metrics over loopback HTTP. */
    private static void assertAdminUrlServes(String adminUrl, String node) {
        assertThat(adminUrl).as(node + "'s adminUrl").startsWith("http://127.0.0.1:");
        HttpClient client = HttpClient.newHttpClient();
        try {
            HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create(adminUrl + "/health/ready"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(URI.create(adminUrl + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("neptune_service_load{", "node=\"" + node + "\"");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void adminClusterListsNodesAndEveryPartitionWithItsReplicas() {
        Reply reply = http.get("/admin/cluster");
        assertThat(reply.status()).isEqualTo(200);
        JsonNode json = reply.json();
        assertThat(json.fieldNames()).toIterable().containsExactly("nodes", "partitions", "classes");
        assertThat(json.get("classes")).as("no node schedules by class here").isEmpty();
        Set<String> ids = new TreeSet<>();
        for (JsonNode node : json.get("nodes")) {
            assertThat(node.fieldNames()).toIterable()
                    .containsExactly("id", "pid", "state", "address", "requestsPerSecond", "adminUrl");
            assertThat(node.get("state").asText()).isEqualTo("RUNNING");
            assertAdminUrlServes(node.get("adminUrl").asText(), node.get("id").asText());
            assertThat(node.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(node.get("address").asText()).startsWith("127.0.0.1:");
            ids.add(node.get("id").asText());
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(cluster.nodeIds());
        assertThat(json.get("partitions")).hasSize(GatewayCluster.ANNOUNCED_PARTITIONS);
        JsonNode first = json.get("partitions").get(0);
        assertThat(first.fieldNames()).toIterable().containsExactly("service", "partition", "replicas");
        assertThat(first.get("service").asText()).isEqualTo("auction");
        assertThat(first.get("replicas")).hasSize(2);
        for (JsonNode partition : json.get("partitions")) {
            List<String> roles = new ArrayList<>();
            for (JsonNode replica : partition.get("replicas")) {
                assertThat(replica.fieldNames()).toIterable().containsExactly("node", "role", "priority", "version");
                roles.add(replica.get("role").asText());
            }
            // the front is level 1: its replicas are all secondaries
            assertThat(roles).as(partition.toString()).containsExactlyInAnyOrderElementsOf(
                    partition.get("service").asText().equals("front") ? List.of("secondary", "secondary")
                            : List.of("primary", "secondary"));
        }

        Reply replicas = http.get("/admin/replicas/cache/5");
        assertThat(replicas.status()).isEqualTo(200);
        assertThat(replicas.json().get("replicas")).hasSize(2);
        for (JsonNode replica : replicas.json().get("replicas")) {
            assertThat(replica.fieldNames()).toIterable().containsExactly("node", "role", "version", "digest");
            assertThat(replica.get("digest").asText()).isNotEmpty();
        }
        assertThat(http.get("/admin/replicas/nope/0").status()).isEqualTo(404);
        assertThat(http.get("/admin/replicas/cache/five").status()).isEqualTo(400);

        JsonNode metrics = http.get("/admin/metrics").json();
        assertThat(metrics.get("demo").asBoolean()).isFalse();
        assertThat(metrics.get("nodes")).hasSize(cluster.nodeIds().size());
        assertThat(metrics.get("services").has("discussion")).isTrue();

        Reply kill = http.admin("/admin/nodes/node-0/kill");
        assertThat(kill.status()).isEqualTo(404);
        assertThat(kill.error()).contains("demo");
    }

    @Test
    void demoModeDelegatesKillAndStartAndShowsAbsentNodesAsDown() {
        RecordingDemoControl control = new RecordingDemoControl(List.of("node-0", "node-1", "node-9"));
        try (HttpGateway demo = HttpGateway.builder(cluster.gatewayNode()).port(0).demoControl(control)
                .adminToken(GatewayCluster.ADMIN_TOKEN).start()) {
            Http admin = new Http("http://127.0.0.1:" + demo.port(), Optional.empty());
            JsonNode nodes = admin.get("/admin/cluster").json().get("nodes");
            JsonNode down = null;
            for (JsonNode node : nodes) {
                if (node.get("id").asText().equals("node-9")) {
                    down = node;
                }
            }
            assertThat(down).as(nodes.toString()).isNotNull();
            assertThat(down.get("state").asText()).isEqualTo("DOWN");
            assertThat(admin.get("/admin/metrics").json().get("demo").asBoolean()).isTrue();

            assertThat(admin.post("/admin/nodes/node-1/kill", new byte[0]).status()).isEqualTo(401);
            assertThat(admin.admin("/admin/nodes/node-1/kill").status()).isEqualTo(200);
            assertThat(admin.admin("/admin/nodes/node-9/start").status()).isEqualTo(200);
            assertThat(admin.admin("/admin/nodes/node-7/kill").status()).isEqualTo(404);
            assertThat(admin.get("/admin/nodes/node-1/kill").status()).isEqualTo(405);
            assertThat(control.actions).containsExactly("kill node-1", "start node-9");
        }
    }

    // ---- 503 and 504 ---------------------------------------------------------------------------

    @Test
    void deadlineAnswers504() {
        try (HttpGateway impatient = HttpGateway.builder(cluster.gatewayNode()).port(0)
                .callTimeout(Duration.ofNanos(1)).start()) {
            Http client = new Http("http://127.0.0.1:" + impatient.port(), Optional.empty());
            Reply reply = client.get("/api/discussion/" + unique("slow") + "/headers");
            assertThat(reply.status()).as(reply.toString()).isEqualTo(504);
            assertThat(reply.error()).contains("deadline");
        }
    }

    @Test
    void noReplicaAnswers503(@TempDir Path discovery) throws Exception {
        MembershipConfig lonely = MembershipConfig.builder().cluster(unique("lonely"))
                .discoveryDirectory(Files.createDirectories(discovery.resolve("d"))).build();
        try (NeptuneNode node = NeptuneNode.builder(NodeConfig.builder().node("lonely").ioThreads(1).membership(lonely)
                .dataDirectory(discovery.resolve("data")).build()).start();
                HttpGateway gateway = HttpGateway.builder(node).port(0).start()) {
            Http client = new Http("http://127.0.0.1:" + gateway.port(), Optional.empty());
            Reply headers = client.get("/api/discussion/t/headers");
            assertThat(headers.status()).as(headers.toString()).isEqualTo(503);
            assertThat(headers.error()).contains("discussion");
            Reply categories = client.get("/api/auction/categories");
            assertThat(categories.status()).as(categories.toString()).isEqualTo(503);
            assertThat(client.put("/api/cache/k", new byte[] {1}).status()).isEqualTo(503);
        }
    }

    private static JsonNode withoutVersion(JsonNode item) {
        return ((com.fasterxml.jackson.databind.node.ObjectNode) item.deepCopy()).without("version");
    }

    /** The primary's version (applied LSN), asked of it directly. */
    private static long primaryVersion(String service, int partition) {
        for (JsonNode replica : http.get("/admin/replicas/" + service + "/" + partition).json().get("replicas")) {
            if (replica.get("role").asText().equals("primary")) {
                return replica.get("version").asLong();
            }
        }
        throw new AssertionError("no primary of " + service + "#" + partition);
    }

    /** The hash part of the primary's digest ({@code <applied LSN>:<hash>}): refused writes advance only the LSN. */
    private static String primaryDigest(String service, int partition) {
        Reply replicas = http.get("/admin/replicas/" + service + "/" + partition);
        assertThat(replicas.status()).isEqualTo(200);
        for (JsonNode replica : replicas.json().get("replicas")) {
            if (replica.get("role").asText().equals("primary")) {
                String digest = replica.get("digest").asText();
                return digest.substring(digest.indexOf(':') + 1);
            }
        }
        throw new AssertionError("no primary of " + service + "#" + partition + ": " + replicas);
    }
}
