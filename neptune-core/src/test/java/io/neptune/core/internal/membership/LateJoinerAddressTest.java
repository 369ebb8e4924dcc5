package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.MembershipConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.PingHeader;
import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A joiner whose address the coordinator learns only after it took the joiner in. A joiner on the
 * loopback stack tells the cluster its address in a discovery response that travels beside its
 * JOIN request; on a loaded machine the JOIN was handled first, the coordinator's FD_SOCK2 found no
 * address to watch, suspected the new member at once, and the coordinator threw it out again half a
 * second later (a CI run's MovePrimaryIT: the false exclusion, then a merge, and an observer that
 * never heard one node for the test's minute). Here the coordinator holds every discovery response
 * back for 0.75 s, so it always handles the JOIN first.
 */
class LateJoinerAddressTest {
    private static final long HOLD_MILLIS = 750;   // well inside PatientFdSock's wait of 1.5 s

    @TempDir
    Path dir;

    @Test
    void aJoinerWhoseAddressArrivesAfterItsJoinStaysInTheView() throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster("late-joiner").build();
        List<View> coordinatorViews = new CopyOnWriteArrayList<>();
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        try (JChannel coordinator = JGroupsStacks.create(config).name("coordinator");
                JChannel joiner = JGroupsStacks.create(config).name("joiner")) {
            coordinator.getProtocolStack().insertProtocol(new HoldDiscoveryResponses(later),
                    ProtocolStack.Position.ABOVE, TP.class);
            coordinator.setReceiver(new Receiver() {
                @Override
                public void viewAccepted(View view) {
                    coordinatorViews.add(view);
                }
            });
            coordinator.connect("late-joiner");
            joiner.connect("late-joiner");

            await().atMost(Duration.ofSeconds(30)).until(() -> coordinator.getView().size() == 2
                    && joiner.getView().size() == 2);
            // longer than the hold, the suspicion's verification (0.5 s) and a JOIN retry (1 s) together
            TimeUnit.MILLISECONDS.sleep(HOLD_MILLIS + 2_500);
            assertThat(coordinatorViews).as("the coordinator's views").extracting(View::size)
                    .containsExactly(1, 2);
        } finally {
            later.shutdownNow();
        }
    }

    /** Hands discovery responses up {@value #HOLD_MILLIS} ms late, and everything else at once. */
    private static final class HoldDiscoveryResponses extends Protocol {
        private final ScheduledExecutorService later;
        private short discoveryId;

        HoldDiscoveryResponses(ScheduledExecutorService later) {
            this.later = later;
        }

        @Override
        public void start() throws Exception {
            super.start();
            discoveryId = ClassConfigurator.getProtocolId(AtomicFilePing.class);
        }

        @Override
        public Object up(Message msg) {
            if (held(msg)) {
                later.schedule(() -> up_prot.up(msg), HOLD_MILLIS, TimeUnit.MILLISECONDS);
                return null;
            }
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            batch.removeIf(msg -> {
                if (!held(msg)) {
                    return false;
                }
                later.schedule(() -> up_prot.up(msg), HOLD_MILLIS, TimeUnit.MILLISECONDS);
                return true;
            }, false);
            if (!batch.isEmpty()) {
                up_prot.up(batch);
            }
        }

        private boolean held(Message msg) {
            PingHeader header = msg.getHeader(discoveryId);
            return header != null && header.type() == PingHeader.GET_MBRS_RSP;
        }
    }
}
