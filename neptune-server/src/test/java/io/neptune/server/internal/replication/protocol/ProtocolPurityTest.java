package io.neptune.server.internal.replication.protocol;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code replication.protocol} pure (issue 24): its decisions take their inputs as arguments
 * and return values, so they are tested without disk, threads, a network or a clock. The
 * replication package around it does all of that.
 */
class ProtocolPurityTest {
    private static final String PROTOCOL = "io.neptune.server.internal.replication.protocol..";

    private static final JavaClasses PROTOCOL_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.neptune.server.internal.replication.protocol");

    @Test
    void theProtocolDoesNoIoRunsNoThreadsAndLogsNothing() {
        ArchRule rule = noClasses().that().resideInAPackage(PROTOCOL)
                .should().dependOnClassesThat().resideInAnyPackage("java.io..", "java.nio..",
                        "java.util.concurrent..", "org.slf4j..", "io.netty..")
                .because("the protocol decides; the replication package around it does the I/O, threading and"
                        + " logging (issue 24)");
        rule.check(PROTOCOL_CLASSES);
    }

    @Test
    void theProtocolReadsNoRedoLog() {
        ArchRule rule = noClasses().that().resideInAPackage(PROTOCOL)
                .should().dependOnClassesThat().haveFullyQualifiedName("io.neptune.server.internal.log.RedoLog")
                .because("the protocol is told log positions; it does not read the log on disk");
        rule.check(PROTOCOL_CLASSES);
    }

    @Test
    void theProtocolIsALeafThatTheRuntimeUsesNotTheOtherWayRound() {
        ArchRule rule = noClasses().that().resideInAPackage(PROTOCOL)
                .should().dependOnClassesThat().resideInAPackage("io.neptune.server.internal.replication.runtime")
                .because("the runtime carries out what the protocol decides; a dependency back would"
                        + " let I/O in through its types");
        rule.check(PROTOCOL_CLASSES);
    }

    @Test
    void theProtocolReadsNoClockAndDrawsNoHiddenRandomness() {
        ArchRule rule = noClasses().that().resideInAPackage(PROTOCOL)
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().dependOnClassesThat().areAssignableTo(ThreadLocalRandom.class)
                .because("time and randomness come in as arguments, so a simulation replays a seed exactly");
        rule.check(PROTOCOL_CLASSES);
    }
}
