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
import org.jgroups.Address;
import org.jgroups.Event;
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

    /**
     * The other members learn a late joiner's address from the coordinator as soon as it has it.
     * Member b never gets the joiner's own discovery response (it drops every one but the
     * coordinator's), and the coordinator gets it {@value #HOLD_MILLIS} ms late. Before, b learned
     * the address only once the coordinator's discovery file was written again (its info writer, here
     * at most once a minute) and b's merge check read the files, and meanwhile b dropped what it sent
     * the joiner ("no physical address"): an observer of a CI run never heard a rejoined node.
     */
    @Test
    void theOtherMembersLearnALateJoinersAddressFromTheCoordinator() throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster("late-joiner").build();
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        try (JChannel coordinator = JGroupsStacks.create(config).name("coordinator");
                JChannel b = JGroupsStacks.create(config).name("b");
                JChannel joiner = JGroupsStacks.create(config).name("joiner")) {
            coordinator.getProtocolStack().insertProtocol(new HoldDiscoveryResponses(later),
                    ProtocolStack.Position.ABOVE, TP.class);
            AtomicFilePing discovery = coordinator.getProtocolStack().findProtocol(AtomicFilePing.class);
            discovery.setInfoWriterSleepTime(60_000);
            coordinator.connect("late-joiner");
            b.getProtocolStack().insertProtocol(new DropDiscoveryResponsesFromAllBut(coordinator.getAddress()),
                    ProtocolStack.Position.ABOVE, TP.class);
            b.connect("late-joiner");
            await().atMost(Duration.ofSeconds(30)).until(() -> b.getView().size() == 2);

            joiner.connect("late-joiner");
            await().atMost(Duration.ofSeconds(30)).until(() -> b.getView().containsMember(joiner.getAddress()));
            long joined = System.nanoTime();
            await().atMost(Duration.ofMillis(1_500)).until(() -> b.getProtocolStack().getTransport()
                    .down(new Event(Event.GET_PHYSICAL_ADDRESS, joiner.getAddress())) != null);
            System.out.printf("LateJoinerAddressTest: b learned the joiner's address %d ms after its view%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joined));
        } finally {
            later.shutdownNow();
        }
    }

    /** Drops every discovery response that does not come from {@code kept}. */
    private static final class DropDiscoveryResponsesFromAllBut extends Protocol {
        private final Address kept;
        private final short discoveryId = ClassConfigurator.getProtocolId(AtomicFilePing.class);

        DropDiscoveryResponsesFromAllBut(Address kept) {
            this.kept = kept;
        }

        @Override
        public Object up(Message msg) {
            return dropped(msg) ? null : up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            batch.removeIf(this::dropped, false);
            if (!batch.isEmpty()) {
                up_prot.up(batch);
            }
        }

        private boolean dropped(Message msg) {
            PingHeader header = msg.getHeader(discoveryId);
            return header != null && header.type() == PingHeader.GET_MBRS_RSP && !kept.equals(msg.getSrc());
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
