package io.neptune.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.neptune.client.internal.MemberClient;
import org.junit.jupiter.api.Test;

/**
 * Keeps a client outside the cluster free of JGroups, which {@code neptune-client} does not bring
 * (it is optional there and in {@code neptune-core}): the classes it loads must not need it. Only
 * {@link MemberClient}, the client that joins the cluster, reaches the membership channel. The
 * runtime proof is the examples' {@code OutsideClientIT}, whose client JVM has no JGroups at all.
 */
class ThinClientDependenciesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.neptune.client", "io.neptune.core");

    /** Classes whose own code uses JGroups: loading one without JGroups on the class path fails. */
    private static final DescribedPredicate<JavaClass> USE_JGROUPS = DescribedPredicate.describe("use JGroups",
            c -> c.getPackageName().startsWith("org.jgroups") || c.getDirectDependenciesFromSelf().stream()
                    .anyMatch(d -> d.getTargetClass().getPackageName().startsWith("org.jgroups")));

    @Test
    void onlyTheMemberClientReachesClassesThatUseJGroups() {
        ArchRule rule = noClasses().that().resideInAPackage("io.neptune.client..")
                .and().doNotHaveFullyQualifiedName(MemberClient.class.getName())
                .should().dependOnClassesThat(USE_JGROUPS)
                .because("a client outside the cluster runs on neptune-client alone, without JGroups (issue 25)");
        rule.check(CLASSES);
    }

    @Test
    void thePublicApiOfCoreNeedsNoJGroups() {
        ArchRule rule = noClasses().that().resideInAPackage("io.neptune.core")
                .should().dependOnClassesThat(USE_JGROUPS)
                .because("every client loads the public configuration types, MembershipConfig among them");
        rule.check(CLASSES);
    }
}
