package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Flame graphs drawn from async-profiler's collapsed stacks, and the profile summaries' keys. */
class FlameGraphTest {
    private static final String STACKS = """
            [neptune-node-b-io-3-1 tid=41];io/netty/channel/nio/NioEventLoop.run;io/neptune/server/internal/Router.route 30
            [neptune-node-b-io-3-1 tid=41];io/netty/channel/nio/NioEventLoop.run;epoll_wait_[k] 10
            [neptune-node-a-io-1-2 tid=17];io/neptune/client/internal/Call.send;java/util/concurrent/CompletableFuture.<init>;java.util.concurrent.CompletableFuture_[i] 60
            """;

    @Test
    void framesAreAsWideAsTheirStacksWeigh() {
        FlameGraph graph = FlameGraph.parse(STACKS);
        String svg = graph.svg("CPU", "test <run>", "samples");

        assertThat(graph.total()).isEqualTo(100);
        assertThat(svg).startsWith("<?xml").endsWith("</svg>\n").contains("test &lt;run&gt;");
        double all = width(svg, "all");
        assertThat(width(svg, "io/netty/channel/nio/NioEventLoop.run")).isCloseTo(all * 0.4, within(0.2));
        assertThat(width(svg, "io/neptune/server/internal/Router.route")).isCloseTo(all * 0.3, within(0.2));
        assertThat(svg).contains("<title>io/neptune/client/internal/Call.send (60 samples, 60.00%)</title>");
    }

    @Test
    void malformedLinesAreRefused() {
        assertThatThrownBy(() -> FlameGraph.parse("no-weight-here")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-weight-here");
    }

    @Test
    void summariesGroupThreadsAndAllocationSites() {
        assertThat(FlameGraph.sumBy(STACKS, frames -> CallPathProfile.threadGroup(frames[0])))
                .containsExactly(entry("neptune-node-a-io-N-N", 60L), entry("neptune-node-b-io-N-N", 40L));
        assertThat(CallPathProfile.allocationSite(new String[] {"java/lang/Thread.run",
                "io/neptune/client/internal/Call.send", "java/util/concurrent/CompletableFuture.<init>",
                "java.util.concurrent.CompletableFuture_[i]"}))
                .isEqualTo("Call.send → CompletableFuture.<init> | CompletableFuture");
        assertThat(CallPathProfile.allocationSite(new String[] {"io/netty/buffer/PooledByteBufAllocator.newDirectBuffer",
                "byte[]_[k]"})).isEqualTo("PooledByteBufAllocator.newDirectBuffer | byte[]");
    }

    @Test
    void labelsAreShort() {
        assertThat(FlameGraph.label("io/neptune/client/internal/Call.send")).isEqualTo("Call.send");
        assertThat(FlameGraph.label("java.lang.Object[]_[i]")).isEqualTo("Object[]");
        assertThat(FlameGraph.label("byte[]_[k]")).isEqualTo("byte[]");
        assertThat(FlameGraph.label("tcp_sendmsg_[k]")).isEqualTo("tcp_sendmsg");
        assertThat(FlameGraph.label("[vdso]")).isEqualTo("[vdso]");
        assertThat(FlameGraph.label("finish_task_switch.isra.0_[k]")).isEqualTo("finish_task_switch.isra.0");
        assertThat(FlameGraph.label("io.neptune.benchmarks.ClosedLoop$$Lambda$459.0x00007f9e082a3988_[i]"))
                .isEqualTo("ClosedLoop$$Lambda$459.0x00007f9e082a3988");
    }

    private static double width(String svg, String frame) {
        Matcher m = Pattern.compile("<title>" + Pattern.quote(frame) + " [^<]*</title><rect [^>]*width=\"([0-9.]+)\"")
                .matcher(svg);
        assertThat(m.find()).as("a frame titled %s", frame).isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static org.assertj.core.data.Offset<Double> within(double offset) {
        return org.assertj.core.data.Offset.offset(offset);
    }

    private static java.util.Map.Entry<String, Long> entry(String key, long value) {
        return java.util.Map.entry(key, value);
    }
}
