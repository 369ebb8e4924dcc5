package io.neptune.examples.discussion;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ServiceEnvironment;
import io.neptune.examples.discussion.DiscussionService.AddMsg;
import io.neptune.examples.discussion.DiscussionService.Header;
import io.neptune.examples.discussion.DiscussionService.ViewHeaders;
import io.neptune.server.FakeRequestContext;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The discussion service on one partition without a cluster: posts, threads and the parent check. */
class DiscussionServiceTest {
    @TempDir
    Path data;

    @Test
    void headersComeBackThreadedDepthFirst() {
        DiscussionService service = new DiscussionService();
        service.start(ServiceEnvironment.of(NodeId.of("n"), data, Set.of(3)));
        try {
            service.addMsg(FakeRequestContext.write("discussion", "AddMsg", 3, 1),
                    new AddMsg("t", "ada", "first", "x", null, 10));
            service.addMsg(FakeRequestContext.write("discussion", "AddMsg", 3, 2),
                    new AddMsg("t", "bob", "second", "y", null, 20));
            service.addMsg(FakeRequestContext.write("discussion", "AddMsg", 3, 3),
                    new AddMsg("t", "eve", "re: first", "z", 1L, 30));
            assertThat(service.addMsg(FakeRequestContext.write("discussion", "AddMsg", 3, 4),
                    new AddMsg("t", "eve", "orphan", "z", 99L, 40)).added()).isFalse();
            var headers = service.viewHeaders(FakeRequestContext.read("discussion", "ViewHeaders", 3),
                    new ViewHeaders("t"));
            assertThat(headers.headers()).extracting(Header::id).containsExactly(1L, 3L, 2L);
            assertThat(headers.headers()).extracting(Header::depth).containsExactly(0, 1, 0);
            assertThat(headers.version()).isEqualTo(4);
        } finally {
            service.stop();
        }
    }
}
