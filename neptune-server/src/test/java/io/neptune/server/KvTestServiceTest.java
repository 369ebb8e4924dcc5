package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.internal.json.Json;
import io.neptune.server.KvTestService.Append;
import io.neptune.server.KvTestService.Count;
import io.neptune.server.KvTestService.Get;
import io.neptune.server.KvTestService.Put;
import io.neptune.server.KvTestService.Value;
import io.neptune.server.KvTestService.Written;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replication test service, called directly with hand-made contexts. */
class KvTestServiceTest {
    @TempDir
    Path directory;

    private final List<KvTestService> started = new ArrayList<>();

    @AfterEach
    void stopServices() {
        started.forEach(KvTestService::stop);
    }

    private KvTestService start(Path dataDirectory) {
        KvTestService service = new KvTestService();
        service.start(ServiceEnvironment.of(FakeRequestContext.NODE, dataDirectory, Set.of(0, 1, 2)));
        started.add(service);
        return service;
    }

    @Test
    void isAValidLevel2ServiceWithCallbacks() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(KvTestService.class);

        assertThat(descriptor.name()).isEqualTo("kv");
        assertThat(descriptor.partitions()).isEqualTo(8);
        assertThat(descriptor.consistency()).isEqualTo(ConsistencyLevel.LEVEL_2);
        assertThat(descriptor.methods()).containsOnlyKeys("put", "append", "get", "count");
        assertThat(descriptor.checkMethod()).map(Method::getName).contains("check");
        assertThat(descriptor.digestMethod()).map(Method::getName).contains("digest");
        assertThat(descriptor.hasLifecycle()).isTrue();
    }

    @Test
    void putThenGet() {
        KvTestService kv = start(directory);

        Written written = kv.put(write("put", 1, 1), new Put("a", "x"));

        assertThat(written).isEqualTo(new Written(1, "test-node"));
        assertThat(kv.get(read("get", 1), new Get("a"))).isEqualTo(new Value("x", 1, "test-node"));
        assertThat(kv.get(read("get", 1), new Get("missing"))).isEqualTo(new Value(null, 1, "test-node"));
        assertThat(kv.get(read("get", 2), new Get("a"))).isEqualTo(new Value(null, 0, "test-node"));
        assertThat(Files.exists(directory.resolve(KvTestService.DATABASE_NAME + ".mv.db"))).isTrue();
    }

    @Test
    void appendConcatenatesInLsnOrder() {
        KvTestService kv = start(directory);

        kv.append(write("append", 0, 1), new Append("a", "x"));
        kv.append(write("append", 0, 2), new Append("a", "y"));
        kv.put(write("put", 0, 3), new Put("b", "1"));
        kv.append(write("append", 0, 4), new Append("b", "2"));

        assertThat(kv.get(read("get", 0), new Get("a")).v()).isEqualTo("xy");
        assertThat(kv.get(read("get", 0), new Get("b")).v()).isEqualTo("12");
        assertThat(kv.count(read("count", 0), new Count())).isEqualTo(4);
    }

    @Test
    void checkAnswersFromTheRecordedLsn() {
        KvTestService kv = start(directory);
        kv.put(write("put", 2, 1), new Put("a", "x"));
        kv.append(write("append", 2, 2), new Append("a", "y"));

        assertThat(kv.check(2, 1)).isTrue();
        assertThat(kv.check(2, 2)).isTrue();
        assertThat(kv.check(2, 3)).isFalse();
        assertThat(kv.check(1, 1)).isFalse();
    }

    @Test
    void aRepeatedLsnIsRefusedAndNotLoggedTwice() {
        KvTestService kv = start(directory);
        kv.put(write("put", 0, 1), new Put("a", "x"));

        assertThatThrownBy(() -> kv.append(write("append", 0, 1), new Append("a", "again")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 0 lsn: 1");

        assertThat(kv.get(read("get", 0), new Get("a")).v()).isEqualTo("x");
        assertThat(kv.count(read("count", 0), new Count())).isEqualTo(1);
    }

    @Test
    void unreplicatedWritesChangeDataButAreNotLogged() {
        KvTestService kv = start(directory);

        kv.put(write("put", 0, 0), new Put("a", "x"));
        kv.append(write("append", 0, 0), new Append("a", "y"));

        assertThat(kv.get(read("get", 0), new Get("a"))).isEqualTo(new Value("xy", 0, "test-node"));
        assertThat(kv.count(read("count", 0), new Count())).isZero();
    }

    @Test
    void replicasThatAppliedTheSameWritesHaveEqualDigests(@TempDir Path other) {
        KvTestService primary = start(directory);
        KvTestService secondary = start(other);
        for (KvTestService replica : List.of(primary, secondary)) {
            replica.put(write("put", 0, 1), new Put("a", "x"));
            replica.append(write("append", 0, 2), new Append("a", "y"));
        }
        primary.put(write("put", 1, 1), new Put("only", "on the primary"));

        assertThat(primary.digest(0)).isEqualTo(secondary.digest(0)).startsWith("2:");
        assertThat(primary.digest(1)).isNotEqualTo(secondary.digest(1));
    }

    @Test
    void appendsInAnotherOrderGiveAnotherValueAndDigest(@TempDir Path other) {
        KvTestService inOrder = start(directory);
        KvTestService reordered = start(other);

        inOrder.append(write("append", 0, 1), new Append("a", "x"));
        inOrder.append(write("append", 0, 2), new Append("a", "y"));
        reordered.append(write("append", 0, 1), new Append("a", "y"));
        reordered.append(write("append", 0, 2), new Append("a", "x"));

        assertThat(inOrder.get(read("get", 0), new Get("a")).v()).isEqualTo("xy");
        assertThat(reordered.get(read("get", 0), new Get("a")).v()).isEqualTo("yx");
        assertThat(inOrder.digest(0)).isNotEqualTo(reordered.digest(0));
    }

    @Test
    void restartKeepsDataAndCheck() {
        KvTestService kv = start(directory);
        kv.put(write("put", 1, 7), new Put("a", "x"));
        String digest = kv.digest(1);
        kv.stop();

        KvTestService restarted = start(directory);

        assertThat(restarted.get(read("get", 1), new Get("a"))).isEqualTo(new Value("x", 7, "test-node"));
        assertThat(restarted.check(1, 7)).isTrue();
        assertThat(restarted.digest(1)).isEqualTo(digest);
    }

    @Test
    void callsOutsideStartAndStopFail() {
        KvTestService kv = new KvTestService();

        assertThatThrownBy(() -> kv.check(0, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("kv: not started (expected: start() before calls)");
        kv.stop();
        KvTestService stopped = start(directory);
        stopped.stop();
        stopped.stop();
        assertThatThrownBy(() -> stopped.get(read("get", 0), new Get("a"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void messagesRoundTripThroughJson() throws Exception {
        ObjectMapper mapper = Json.mapper();
        List<Object> messages = List.of(new Put("k", "v"), new Append("k", "s"), new Written(3, "n1"), new Get("k"),
                new Value(null, 2, "n1"), new Value("v", 2, "n1"), new Count());

        for (Object message : messages) {
            byte[] json = mapper.writeValueAsBytes(message);
            assertThat(mapper.readValue(json, message.getClass())).isEqualTo(message);
        }
    }

    private static FakeRequestContext write(String method, int partition, long lsn) {
        return FakeRequestContext.write("kv", method, partition, lsn);
    }

    private static FakeRequestContext read(String method, int partition) {
        return FakeRequestContext.read("kv", method, partition);
    }
}
