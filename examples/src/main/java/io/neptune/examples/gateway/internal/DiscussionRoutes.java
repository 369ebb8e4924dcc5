package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.Partitions;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.discussion.DiscussionService;
import io.neptune.examples.discussion.DiscussionService.AddMsg;
import io.neptune.examples.discussion.DiscussionService.Added;
import io.neptune.examples.discussion.DiscussionService.Header;
import io.neptune.examples.discussion.DiscussionService.Headers;
import io.neptune.examples.discussion.DiscussionService.Message;
import io.neptune.examples.discussion.DiscussionService.ViewHeaders;
import io.neptune.examples.discussion.DiscussionService.ViewMsg;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The discussion group's routes: a topic's threaded headers, one message, and posting. A topic's
 * partition is {@link Partitions#of(Object, int)} of its name.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class DiscussionRoutes {
    /** The service name. */
    public static final String SERVICE = "discussion";
    private static final int PARTITIONS = ServiceDescriptor.of(DiscussionService.class).partitions();

    private final NeptuneClient client;
    private final CallOptions options;

    /** Creates the routes calling through {@code client} with {@code options}. */
    public DiscussionRoutes(NeptuneClient client, CallOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/api/discussion/{topic}/headers", this::headers)
                .add("GET", "/api/discussion/{topic}/messages/{id}", this::message)
                .add("POST", "/api/discussion/{topic}/messages", this::post);
    }

    private CompletableFuture<GatewayResponse> headers(GatewayRequest request, List<String> parameters) {
        ViewHeaders view = new ViewHeaders(parameters.get(0));
        return client.callAsync(request.session(), SERVICE, partition(view.topic()), "ViewHeaders", AccessMode.READ,
                view, Headers.class, request.options(options)).thenApply(headers -> {
                    ObjectNode json = Json.mapper().createObjectNode().put("topic", headers.topic())
                            .put("version", headers.version());
                    ArrayNode list = json.putArray("headers");
                    for (Header h : headers.headers()) {
                        list.addObject().put("id", h.id()).put("parentId", h.parentId()).put("author", h.author())
                                .put("subject", h.subject()).put("postedAt", h.postedAt()).put("depth", h.depth());
                    }
                    return GatewayResponse.json(200, json);
                });
    }

    private CompletableFuture<GatewayResponse> message(GatewayRequest request, List<String> parameters) {
        ViewMsg view = new ViewMsg(parameters.get(0), messageId(parameters.get(1)));
        return client.callAsync(request.session(), SERVICE, partition(view.topic()), "ViewMsg", AccessMode.READ, view,
                Message.class, request.options(options)).thenApply(m -> {
                    if (!m.found()) {
                        throw HttpStatusException.notFound("no message " + view.id() + " in topic '" + view.topic() + "'");
                    }
                    return GatewayResponse.json(200, Json.mapper().createObjectNode().put("id", m.id())
                            .put("parentId", m.parentId()).put("author", m.author()).put("subject", m.subject())
                            .put("body", m.body()).put("postedAt", m.postedAt()).put("version", m.version()));
                });
    }

    /**
     * Posts in two steps when the message replies: a read refuses an unknown parent without a
     * write (no LSN taken, the version unchanged). Message ids are the LSNs that created them, so a
     * parent absent at a version at or past its id does not exist; a lagging replica's "absent" is
     * left to the write, which checks again.
     */
    private CompletableFuture<GatewayResponse> post(GatewayRequest request, List<String> parameters) {
        JsonBody body = JsonBody.parse(request.body());
        AddMsg add = new AddMsg(parameters.get(0), body.text("author"), body.text("subject"), body.text("body"),
                body.optionalInteger("parentId").orElse(null), System.currentTimeMillis());
        Long parentId = add.parentId();
        CompletableFuture<Void> parentCheck = parentId == null ? CompletableFuture.completedFuture(null)
                : client.callAsync(request.session(), SERVICE, partition(add.topic()), "ViewMsg", AccessMode.READ,
                        new ViewMsg(add.topic(), parentId), Message.class, request.options(options))
                        .thenAccept(parent -> {
                            if (!parent.found() && parent.version() >= parentId) {
                                throw HttpStatusException.badRequest("parentId: " + parentId
                                        + " (expected: a message of topic '" + add.topic() + "')");
                            }
                        });
        return parentCheck.thenCompose(v -> client.callAsync(request.session(), SERVICE, partition(add.topic()), "AddMsg",
                AccessMode.WRITE, add, Added.class, request.options(options))).thenApply(added -> {
                    if (!added.added()) {
                        throw HttpStatusException.badRequest(added.error());
                    }
                    return GatewayResponse.json(201, Json.mapper().createObjectNode().put("id", added.id())
                            .put("version", added.version()));
                });
    }

    private static long messageId(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw HttpStatusException.badRequest("id: '" + text + "' (expected: a message id, an integer)");
        }
    }

    private static int partition(String topic) {
        return Partitions.of(topic, PARTITIONS);
    }
}
