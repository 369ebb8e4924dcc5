package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.ClassStats;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.internal.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The announcement's JSON form: what the membership channel sends, including across versions. */
class AnnouncementTest {
    @Test
    void roundTripsWithTheServedCount() throws Exception {
        Announcement sent = new Announcement("a", "127.0.0.1", 1, 2, 3, 4, 5, 6, List.of(), 12_345);
        Announcement received = Json.mapper().readValue(Json.mapper().writeValueAsBytes(sent), Announcement.class);
        assertThat(received).isEqualTo(sent);
        assertThat(received.served()).isEqualTo(12_345);
    }

    @Test
    void roundTripsWithTheAdminPortAndNamesItsUrl() throws Exception {
        Announcement sent = new Announcement("a", "127.0.0.1", 1, 2, 3, 4, 5, 6, List.of(), 7, 9_090);
        String json = Json.mapper().writeValueAsString(sent);
        assertThat(json).contains("\"adminPort\":9090").doesNotContain("adminUrl");
        Announcement received = Json.mapper().readValue(json, Announcement.class);
        assertThat(received).isEqualTo(sent);
        assertThat(received.adminUrl()).isEqualTo("http://127.0.0.1:9090");
        assertThat(new Announcement("a", "::1", 1, 2, 3, 4, 5, 6, List.of(), 7, 9_090).adminUrl())
                .isEqualTo("http://[::1]:9090");
    }

    /** An announcement of node a without services, with {@code more} fields appended, as JSON. */
    private static String withFields(String more) {
        return "{\"node\":\"a\",\"host\":\"127.0.0.1\",\"tcpPort\":1,\"udpPort\":2,\"pid\":3,\"incarnation\":4,"
                + "\"sequence\":5,\"load\":6,\"services\":[]" + more + "}";
    }

    @Test
    void anAnnouncementWithoutAnAdminPortHasNoAdminUrl() throws Exception {
        Announcement received = Json.mapper().readValue(withFields(",\"served\":7"), Announcement.class);
        assertThat(received.adminPort()).isZero();
        assertThat(received.adminUrl()).isEmpty();
    }

    @Test
    void anAdminPortOutOfRangeIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Json.mapper().readValue(
                withFields(",\"adminPort\":70000"), Announcement.class))
                .hasMessageContaining("adminPort: 70000 (expected: 1..65535)");
    }

    @Test
    void anAnnouncementWithoutTheServedCountReadsAsZero() throws Exception {
        Announcement received = Json.mapper().readValue(withFields(""), Announcement.class);
        assertThat(received.served()).isZero();
        assertThat(received.load()).isEqualTo(6);
    }

    @Test
    void fieldsFromANewerNodeAreIgnored() throws Exception {
        String newer = "{\"node\":\"a\",\"host\":\"127.0.0.1\",\"tcpPort\":1,\"udpPort\":2,\"pid\":3,\"incarnation\":4,"
                + "\"sequence\":5,\"load\":6,\"served\":7,\"zone\":\"eu-1\",\"services\":[{\"name\":\"s\","
                + "\"partitions\":1,\"load\":0,\"replicas\":[],\"consistency\":\"LEVEL_2\",\"stalenessMillis\":0,"
                + "\"weight\":2}]}";
        Announcement received = Json.mapper().readValue(newer, Announcement.class);
        assertThat(received.served()).isEqualTo(7);
        assertThat(received.services()).singleElement().satisfies(s -> assertThat(s.name()).isEqualTo("s"));
    }

    @Test
    void classCountersRoundTripAndAnOlderServiceEntryHasNone() throws Exception {
        ClassStats gold = new ClassStats("gold", 0.3, 0.25, 2, 100, 90, 5, 3, 2, 400, 350.5, 9);
        Announcement.HostedService service = new Announcement.HostedService("s", 4, 2, List.of(),
                ConsistencyLevel.LEVEL_1, 0, List.of(gold), 8);
        Announcement sent = new Announcement("a", "127.0.0.1", 1, 2, 3, 4, 5, 6, List.of(service), 7);
        String json = Json.mapper().writeValueAsString(sent);
        assertThat(json).contains("\"realizedYield\":350.5").doesNotContain("lossPercent");
        Announcement received = Json.mapper().readValue(json, Announcement.class);
        assertThat(received.services().get(0).classes()).containsExactly(gold);
        assertThat(received.services().get(0).classes().get(0).lossPercent()).isCloseTo(12.375,
                org.assertj.core.api.Assertions.within(1e-9));

        String newerClass = json.replace("\"queued\":2", "\"queued\":2,\"p99Millis\":12");
        assertThat(Json.mapper().readValue(newerClass, Announcement.class)).isEqualTo(received);
        String older = "{\"node\":\"a\",\"host\":\"127.0.0.1\",\"tcpPort\":1,\"udpPort\":2,\"pid\":3,"
                + "\"incarnation\":4,\"sequence\":5,\"load\":6,\"services\":[{\"name\":\"s\",\"partitions\":1,"
                + "\"load\":0,\"replicas\":[],\"consistency\":\"LEVEL_2\",\"stalenessMillis\":0}]}";
        Announcement.HostedService olderService = Json.mapper().readValue(older, Announcement.class).services().get(0);
        assertThat(olderService.classes()).isEmpty();
        assertThat(olderService.workers()).as("a node that predates the field").isZero();
    }
}
