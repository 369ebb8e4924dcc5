package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import org.junit.jupiter.api.Test;

/** Registration of stream methods: the two valid shapes, and every stream definition error. */
class StreamMethodDescriptorTest {

    public record Query(String words) {}

    public record Hit(String id) {}

    @NeptuneService(name = "search", partitions = 2)
    public static final class Streams {
        @Read
        public Flow.Publisher<Hit> search(RequestContext context, Query query) {
            return new SubmissionPublisher<>();
        }

        @Read(name = "talk")
        public Flow.Publisher<List<Hit>> chat(RequestContext context, Flow.Publisher<Query> input) {
            return new SubmissionPublisher<>();
        }

        @Read
        public Hit one(RequestContext context, Query query) {
            return new Hit("1");
        }

        @Read(resumable = true)
        public Flow.Publisher<Hit> scan(RequestContext context, Query query) {
            return new SubmissionPublisher<>();
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class ResumableInput {
        @Read(resumable = true)
        public Flow.Publisher<Hit> chat(RequestContext context, Flow.Publisher<Query> input) {
            return new SubmissionPublisher<>();
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class NonBlockingStream {
        @Read(blocking = false)
        public Flow.Publisher<Hit> scan(RequestContext context, Query query) {
            return new SubmissionPublisher<>();
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class ResumableCall {
        @Read(resumable = true)
        public Hit one(RequestContext context, Query query) {
            return new Hit("1");
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class WriteStream {
        @Write
        public Flow.Publisher<Hit> search(RequestContext context, Query query) {
            return new SubmissionPublisher<>();
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class InputWithoutOutput {
        @Read
        public Hit count(RequestContext context, Flow.Publisher<Query> input) {
            return new Hit("1");
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    @SuppressWarnings("rawtypes")
    public static final class RawPublisher {
        @Read
        public Flow.Publisher search(RequestContext context, Query query) {
            return new SubmissionPublisher<>();
        }
    }

    @NeptuneService(name = "bad", partitions = 1)
    public static final class WildcardItems {
        @Read
        public Flow.Publisher<?> search(RequestContext context, Query query) {
            return new SubmissionPublisher<Hit>();
        }
    }

    @Test
    void streamMethodsAreDescribedWithTheirItemTypes() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(Streams.class);

        MethodDescriptor search = descriptor.method("search").orElseThrow();
        assertThat(search.mode()).isEqualTo(AccessMode.READ);
        assertThat(search.streamsOut()).isTrue();
        assertThat(search.streamsIn()).isFalse();
        assertThat(search.outputItem()).contains(Hit.class);
        assertThat(search.requestType()).isEqualTo(Query.class);

        MethodDescriptor talk = descriptor.method("talk").orElseThrow();
        assertThat(talk.streamsOut()).isTrue();
        assertThat(talk.streamsIn()).isTrue();
        assertThat(talk.inputItem()).contains(Query.class);
        assertThat(talk.outputItem().orElseThrow().getTypeName()).isEqualTo("java.util.List<" + Hit.class.getName()
                + ">");

        MethodDescriptor one = descriptor.method("one").orElseThrow();
        assertThat(one.streamsOut()).isFalse();
        assertThat(one.streamsIn()).isFalse();
        assertThat(one.outputItem()).isEmpty();
    }

    @Test
    void onlyAnOutputStreamOfARequestMayBeResumable() {
        ServiceDescriptor descriptor = ServiceDescriptor.of(Streams.class);
        assertThat(descriptor.method("scan").orElseThrow().resumable()).isTrue();
        assertThat(descriptor.method("search").orElseThrow().resumable()).isFalse();
        assertThatThrownBy(() -> ServiceDescriptor.of(ResumableInput.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("method chat() is @Read(resumable = true) but takes the client's stream, which"
                        + " cannot be sent to another replica again");
        assertThatThrownBy(() -> ServiceDescriptor.of(ResumableCall.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("method one() is @Read(resumable = true) but does not stream");
    }

    @Test
    void aStreamCannotBeNonBlocking() {
        assertThatThrownBy(() -> ServiceDescriptor.of(NonBlockingStream.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("method scan() is @Read(blocking = false) but streams");
        assertThat(ServiceDescriptor.of(Streams.class).method("one").orElseThrow().blocking()).isTrue();
    }

    @Test
    void aWriteStreamIsRefusedSayingWhy() {
        assertThatThrownBy(() -> ServiceDescriptor.of(WriteStream.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("method search() is a @Write stream method (expected: @Read; streams are"
                        + " read-only: they are neither replicated nor logged");
    }

    @Test
    void aStreamInputNeedsAStreamOutput() {
        assertThatThrownBy(() -> ServiceDescriptor.of(InputWithoutOutput.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("method count() takes a Flow.Publisher but returns Hit");
    }

    @Test
    void theItemTypeMustBeConcrete() {
        assertThatThrownBy(() -> ServiceDescriptor.of(RawPublisher.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("(expected: Flow.Publisher<T> with a concrete item type T mapped by Jackson)");
        assertThatThrownBy(() -> ServiceDescriptor.of(WildcardItems.class))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageContaining("Flow$Publisher<?>");
    }
}
