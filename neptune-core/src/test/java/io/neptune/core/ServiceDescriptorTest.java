package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** Registration of annotated service classes: the valid shape and every definition error. */
class ServiceDescriptorTest {

    public record Req(String text) {}

    public record Res(String text) {}

    @NeptuneService(name = "kv.store_1-a", partitions = 16, consistency = ConsistencyLevel.LEVEL_3)
    public static final class Valid {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res(request.text());
        }

        @Read(name = "scan")
        public List<Res> list(RequestContext context, Req request) {
            return List.of();
        }

        @Write
        public Long put(RequestContext context, Req request) {
            return 1L;
        }

        /** Not annotated: not callable. */
        public Res helper(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public boolean applied(int partition, long lsn) {
            return false;
        }
    }

    @Test
    void validServiceIsDescribed() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(Valid.class);

        assertThat(descriptor.serviceClass()).isEqualTo(Valid.class);
        assertThat(descriptor.name()).isEqualTo("kv.store_1-a");
        assertThat(descriptor.partitions()).isEqualTo(16);
        assertThat(descriptor.consistency()).isEqualTo(ConsistencyLevel.LEVEL_3);
        assertThat(descriptor.methods()).containsOnlyKeys("get", "scan", "put");
        MethodDescriptor get = descriptor.method("get").orElseThrow();
        assertThat(get.mode()).isEqualTo(AccessMode.READ);
        assertThat(get.requestType()).isEqualTo(Req.class);
        assertThat(get.responseType()).isEqualTo(Res.class);
        assertThat(get.javaMethod().getName()).isEqualTo("get");
        MethodDescriptor scan = descriptor.method("scan").orElseThrow();
        assertThat(scan.javaMethod().getName()).isEqualTo("list");
        assertThat(scan.responseType().getTypeName()).isEqualTo("java.util.List<" + Res.class.getName() + ">");
        assertThat(descriptor.method("put").orElseThrow().mode()).isEqualTo(AccessMode.WRITE);
        assertThat(descriptor.method("helper")).isEmpty();
        assertThat(descriptor.method("list")).isEmpty();
        assertThat(descriptor.toString()).contains("kv.store_1-a", "partitions=16");
        assertThat(descriptor.checkMethod()).map(Method::getName).contains("applied");
        assertThat(descriptor.digestMethod()).isEmpty();
        assertThat(descriptor.hasLifecycle()).isFalse();
        assertThat(descriptor.method("applied")).isEmpty();
    }

    @Test
    void methodsMapIsImmutable() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(Valid.class);

        assertThatThrownBy(() -> descriptor.methods().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void defaultConsistencyIsLevel1() {
        assertThat(ServiceDescriptor.of(OneMethod.class).consistency()).isEqualTo(ConsistencyLevel.LEVEL_1);
    }

    @NeptuneService(name = "one", partitions = 1)
    public static final class OneMethod {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }
    }

    // ---------------------------------------------------------------- class-level errors

    public static final class NotAnnotated {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void missingAnnotation() {
        assertRejected(NotAnnotated.class).hasMessageContaining("missing @NeptuneService");
    }

    @NeptuneService(name = "zero", partitions = 0)
    public static final class ZeroPartitions {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "negative", partitions = -3)
    public static final class NegativePartitions {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void partitionsBelowOne() {
        assertRejected(ZeroPartitions.class).hasMessageContaining("partitions: 0 (expected: 1..65536)");
        assertRejected(NegativePartitions.class).hasMessageContaining("partitions: -3 (expected: 1..65536)");
    }

    @NeptuneService(name = "has space", partitions = 1)
    public static final class SpaceInName {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "", partitions = 1)
    public static final class EmptyName {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "x12345678901234567890123456789012345678901234567890123456789012345", partitions = 1)
    public static final class LongName {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void badServiceName() {
        assertRejected(SpaceInName.class).hasMessageContaining("name: 'has space' (expected: 1-64 of letters");
        assertRejected(EmptyName.class).hasMessageContaining("name: '' (expected:");
        assertRejected(LongName.class).hasMessageContaining("(expected: 1-64 of letters");
    }

    @NeptuneService(name = "none", partitions = 1)
    public static final class NoMethods {
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void noAnnotatedMethods() {
        assertRejected(NoMethods.class).hasMessageContaining("no @Read or @Write methods (expected: at least one)");
    }

    @NeptuneService(name = "hidden", partitions = 1)
    static final class NotPublic {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void nonPublicClass() {
        assertRejected(NotPublic.class).hasMessageContaining("class is not public (expected: public)");
    }

    // ---------------------------------------------------------------- method-level errors

    @NeptuneService(name = "dup", partitions = 1)
    public static final class DuplicateNames {
        @Read(name = "get")
        public Res first(RequestContext context, Req request) {
            return new Res("");
        }

        @Write(name = "get")
        public Res second(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "dup2", partitions = 1)
    public static final class RenamedOntoAnotherMethod {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }

        @Read(name = "get")
        public Res fetch(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void duplicateMethodName() {
        assertRejected(DuplicateNames.class)
                .hasMessageContaining("duplicate method name 'get'")
                .hasMessageContaining("first()")
                .hasMessageContaining("second()");
        assertRejected(RenamedOntoAnotherMethod.class)
                .hasMessageContaining("duplicate method name 'get'")
                .hasMessageContaining("fetch()")
                .hasMessageContaining("get()");
    }

    @NeptuneService(name = "onearg", partitions = 1)
    public static final class OneParameter {
        @Read
        public Res lonely(RequestContext context) {
            return new Res("");
        }
    }

    @NeptuneService(name = "threeargs", partitions = 1)
    public static final class ThreeParameters {
        @Read
        public Res crowded(RequestContext context, Req request, Req extra) {
            return new Res("");
        }
    }

    @Test
    void wrongParameterCount() {
        assertRejected(OneParameter.class)
                .hasMessageContaining("method lonely()")
                .hasMessageContaining("(expected: (RequestContext, <request type>))");
        assertRejected(ThreeParameters.class)
                .hasMessageContaining("method crowded()")
                .hasMessageContaining("(expected: (RequestContext, <request type>))");
    }

    @NeptuneService(name = "swapped", partitions = 1)
    public static final class ContextNotFirst {
        @Read
        public Res swapped(Req request, RequestContext context) {
            return new Res("");
        }
    }

    @Test
    void firstParameterNotRequestContext() {
        assertRejected(ContextNotFirst.class)
                .hasMessageContaining("method swapped()")
                .hasMessageContaining("(expected: (RequestContext, <request type>))");
    }

    @NeptuneService(name = "prim", partitions = 1)
    public static final class PrimitiveRequest {
        @Read
        public Res count(RequestContext context, int request) {
            return new Res("");
        }
    }

    @Test
    void primitiveRequestType() {
        assertRejected(PrimitiveRequest.class)
                .hasMessageContaining("method count()")
                .hasMessageContaining("takes primitive int (expected: an object type mapped by Jackson)");
    }

    @NeptuneService(name = "void", partitions = 1)
    public static final class VoidReturn {
        @Write
        public void forget(RequestContext context, Req request) {}
    }

    @Test
    void voidReturn() {
        assertRejected(VoidReturn.class)
                .hasMessageContaining("method forget() returns void (expected: a response object)");
    }

    @NeptuneService(name = "static", partitions = 1)
    public static final class StaticMethod {
        @Read
        public static Res shared(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void staticMethod() {
        assertRejected(StaticMethod.class)
                .hasMessageContaining("method shared() is static (expected: instance method)");
    }

    @NeptuneService(name = "both", partitions = 1)
    public static final class ReadAndWrite {
        @Read
        @Write
        public Res confused(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void bothReadAndWrite() {
        assertRejected(ReadAndWrite.class)
                .hasMessageContaining("method confused() has both @Read and @Write (expected: one)");
    }

    @NeptuneService(name = "badmethod", partitions = 1)
    public static final class BadMethodName {
        @Read(name = "no/slash")
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void badMethodName() {
        assertRejected(BadMethodName.class)
                .hasMessageContaining("method get() name: 'no/slash' (expected: 1-64 of letters");
    }

    @NeptuneService(name = "privatemethod", partitions = 1)
    public static final class NonPublicAnnotatedMethod {
        @Read
        public Res get(RequestContext context, Req request) {
            return new Res("");
        }

        @Write
        Res put(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void nonPublicAnnotatedMethodIsAnErrorNotSilentlyDropped() {
        assertRejected(NonPublicAnnotatedMethod.class)
                .hasMessageContaining("method put() is not public (expected: public)");
    }

    // ---------------------------------------------------------------- replication callbacks

    @NeptuneService(name = "replicated", partitions = 4, consistency = ConsistencyLevel.LEVEL_2)
    public static final class WithCallbacks implements ServiceLifecycle {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public boolean wasApplied(int partition, long lsn) {
            return true;
        }

        @Digest
        public String hash(int partition) {
            return "";
        }
    }

    @Test
    void callbacksAreDescribed() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(WithCallbacks.class);

        assertThat(descriptor.checkMethod()).map(Method::getName).contains("wasApplied");
        assertThat(descriptor.digestMethod()).map(Method::getName).contains("hash");
        assertThat(descriptor.hasLifecycle()).isTrue();
        assertThat(descriptor.methods()).containsOnlyKeys("put");
    }

    @NeptuneService(name = "level1", partitions = 1)
    public static final class Level1WithDigestOnly {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public String digest(int partition) {
            return "";
        }
    }

    @Test
    void checkIsOptionalForLevel1() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(Level1WithDigestOnly.class);

        assertThat(descriptor.checkMethod()).isEmpty();
        assertThat(descriptor.digestMethod()).isPresent();
        assertThat(ServiceDescriptor.of(OneMethod.class).digestMethod()).isEmpty();
    }

    @NeptuneService(name = "nocheck2", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Level2WithoutCheck {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "nocheck3", partitions = 1, consistency = ConsistencyLevel.LEVEL_3)
    public static final class Level3WithoutCheck {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public String digest(int partition) {
            return "";
        }
    }

    @Test
    void missingCheckForLevel2And3() {
        assertRejected(Level2WithoutCheck.class).hasMessageEndingWith(": consistency LEVEL_2 requires a @Check method"
                + " (expected: public boolean check(int partition, long lsn))");
        assertRejected(Level3WithoutCheck.class).hasMessageEndingWith(": consistency LEVEL_3 requires a @Check method"
                + " (expected: public boolean check(int partition, long lsn))");
    }

    @NeptuneService(name = "checkparams", partitions = 1)
    public static final class CheckWrongParameters {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public boolean check(int partition, int lsn) {
            return true;
        }
    }

    @NeptuneService(name = "checkboxed", partitions = 1)
    public static final class CheckBoxedParameter {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public boolean check(Integer partition, long lsn) {
            return true;
        }
    }

    @NeptuneService(name = "checkreturn", partitions = 1)
    public static final class CheckBoxedReturn {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public Boolean check(int partition, long lsn) {
            return true;
        }
    }

    @Test
    void checkSignature() {
        assertRejected(CheckWrongParameters.class).hasMessageEndingWith(": @Check method check() parameters: (int, int)"
                + " (expected: public boolean check(int partition, long lsn))");
        assertRejected(CheckBoxedParameter.class).hasMessageContaining("@Check method check() parameters:"
                + " (Integer, long) (expected: public boolean check(int partition, long lsn))");
        assertRejected(CheckBoxedReturn.class).hasMessageEndingWith(": @Check method check() return type: Boolean"
                + " (expected: public boolean check(int partition, long lsn))");
    }

    @NeptuneService(name = "checkstatic", partitions = 1)
    public static final class StaticCheck {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public static boolean check(int partition, long lsn) {
            return true;
        }
    }

    @NeptuneService(name = "checkprivate", partitions = 1)
    public static final class NonPublicCheck {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        boolean check(int partition, long lsn) {
            return true;
        }
    }

    @NeptuneService(name = "checkwrite", partitions = 1)
    public static final class CheckAndWrite {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        @Write
        public Res both(RequestContext context, Req request) {
            return new Res("");
        }
    }

    @Test
    void checkShape() {
        assertRejected(StaticCheck.class).hasMessageContaining("@Check method check() is static (expected: public");
        assertRejected(NonPublicCheck.class).hasMessageContaining("method check() is not public (expected: public)");
        assertRejected(CheckAndWrite.class)
                .hasMessageContaining("@Check method both() is also @Read or @Write (expected: a separate method)");
    }

    @NeptuneService(name = "twochecks", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class TwoChecks {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Check
        public boolean first(int partition, long lsn) {
            return true;
        }

        @Check
        public boolean second(int partition, long lsn) {
            return true;
        }
    }

    @NeptuneService(name = "twodigests", partitions = 1)
    public static final class TwoDigests {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public String first(int partition) {
            return "";
        }

        @Digest
        public String second(int partition) {
            return "";
        }
    }

    @Test
    void atMostOneCallbackOfEachKind() {
        assertRejected(TwoChecks.class)
                .hasMessageEndingWith(": @Check methods: first() and second() (expected: at most one)");
        assertRejected(TwoDigests.class)
                .hasMessageEndingWith(": @Digest methods: first() and second() (expected: at most one)");
    }

    @NeptuneService(name = "digestparams", partitions = 1)
    public static final class DigestWrongParameters {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public String digest(long partition) {
            return "";
        }
    }

    @NeptuneService(name = "digestnoparams", partitions = 1)
    public static final class DigestNoParameters {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public String digest() {
            return "";
        }
    }

    @NeptuneService(name = "digestreturn", partitions = 1)
    public static final class DigestWrongReturn {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        public byte[] digest(int partition) {
            return new byte[0];
        }
    }

    @NeptuneService(name = "digestprivate", partitions = 1)
    public static final class NonPublicDigest {
        @Write
        public Res put(RequestContext context, Req request) {
            return new Res("");
        }

        @Digest
        String digest(int partition) {
            return "";
        }
    }

    @Test
    void digestSignature() {
        assertRejected(DigestWrongParameters.class).hasMessageEndingWith(": @Digest method digest() parameters: (long)"
                + " (expected: public String digest(int partition))");
        assertRejected(DigestNoParameters.class).hasMessageEndingWith(": @Digest method digest() parameters: ()"
                + " (expected: public String digest(int partition))");
        assertRejected(DigestWrongReturn.class).hasMessageEndingWith(": @Digest method digest() return type: byte[]"
                + " (expected: public String digest(int partition))");
        assertRejected(NonPublicDigest.class).hasMessageContaining("method digest() is not public (expected: public)");
    }

    @Test
    void environmentIsAValue() {
        ServiceEnvironment environment = ServiceEnvironment.of(NodeId.of("n1"), Path.of("data", "kv"), Set.of(3, 1, 2));

        assertThat(environment.node()).isEqualTo(NodeId.of("n1"));
        assertThat(environment.dataDirectory()).isEqualTo(Path.of("data", "kv"));
        assertThat(environment.partitions()).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> environment.partitions().add(4)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(environment)
                .isEqualTo(ServiceEnvironment.of(NodeId.of("n1"), Path.of("data", "kv"), Set.of(1, 2, 3)));
        assertThat(environment.toString()).contains("n1", "[1, 2, 3]");
        assertThatThrownBy(() -> ServiceEnvironment.of(NodeId.of("n1"), Path.of("d"), Set.of(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition: -1 (expected: >= 0)");
    }

    @Test
    void lifecycleDefaultsDoNothing() {
        ServiceLifecycle lifecycle = new ServiceLifecycle() {};

        lifecycle.start(ServiceEnvironment.of(NodeId.of("n1"), Path.of("d"), Set.of()));
        lifecycle.stop();
    }

    @Test
    void nullClass() {
        assertThatThrownBy(() -> ServiceDescriptor.of(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("serviceClass");
    }

    /** Asserts a {@link ServiceDefinitionException} whose message starts with the class name. */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(Class<?> serviceClass) {
        return assertThatThrownBy(() -> ServiceDescriptor.of(serviceClass))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageStartingWith(serviceClass.getName() + ": ")
                .satisfies(e -> assertThat(((ServiceDefinitionException) e).serviceClass())
                        .isEqualTo(serviceClass.getName()));
    }
}
