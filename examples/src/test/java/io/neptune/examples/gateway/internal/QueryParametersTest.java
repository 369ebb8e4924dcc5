package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class QueryParametersTest {
    @Test
    void decodesPlusPercentAndUtf8() {
        QueryParameters query = QueryParameters.parse("q=man+pages%20and%2Bmore&k=10&e=&flag&&caf%C3%A9=%E2%98%83");
        assertThat(query.single("q")).contains("man pages and+more");
        assertThat(query.single("k")).contains("10");
        assertThat(query.single("e")).contains("");
        assertThat(query.single("flag")).contains("");
        assertThat(query.single("café")).contains("\u2603");
        assertThat(query.single("absent")).isEmpty();
        assertThat(QueryParameters.parse("").asMap()).isEmpty();
        assertThat(QueryParameters.parse("a=1&b=2&a=3").asMap()).isEqualTo(Map.of("a", List.of("1", "3"), "b",
                List.of("2")));
    }

    @Test
    void aParameterGivenTwiceIsRefusedWhenReadAsOne() {
        QueryParameters query = QueryParameters.parse("q=a&q=b");
        assertThatThrownBy(() -> query.single("q")).isInstanceOfSatisfying(HttpStatusException.class,
                e -> assertThat(e.status()).isEqualTo(400)).hasMessage("q: given 2 times (expected: once)");
    }

    @Test
    void malformedQueriesAreRefused() {
        assertThatThrownBy(() -> QueryParameters.parse("q=%zz")).hasMessage("bad escape at '%zz' (expected: % and"
                + " two hex digits)");
        assertThatThrownBy(() -> QueryParameters.parse("q=abc%4")).hasMessageStartingWith("bad escape at '%4'");
        assertThatThrownBy(() -> QueryParameters.parse("q=%")).hasMessageStartingWith("bad escape");
        assertThatThrownBy(() -> QueryParameters.parse("q=%FF%FE")).hasMessage("escaped bytes that are not UTF-8");
        assertThatThrownBy(() -> QueryParameters.parse("q=%C3")).hasMessage("escaped bytes that are not UTF-8");
        assertThatThrownBy(() -> QueryParameters.parse("=x")).hasMessage("a parameter without a name");
        assertThatThrownBy(() -> QueryParameters.parse("q=caf\u00e9")).hasMessageStartingWith("a raw non-ASCII");
        assertThatThrownBy(() -> QueryParameters.parse("q=a\tb")).hasMessageStartingWith("a raw control");
        assertThatThrownBy(() -> QueryParameters.parse("a=1&".repeat(QueryParameters.MAX_PARAMETERS + 1)))
                .hasMessage("more than 64 parameters");
        String most = IntStream.range(0, QueryParameters.MAX_PARAMETERS).mapToObj(i -> "p" + i + "=" + i)
                .collect(Collectors.joining("&"));
        assertThat(QueryParameters.parse(most).single("p63")).contains("63");
    }
}
