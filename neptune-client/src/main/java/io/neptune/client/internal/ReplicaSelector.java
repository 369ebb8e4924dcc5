package io.neptune.client.internal;

import io.neptune.core.ServiceClass;
import io.neptune.core.internal.membership.Replica;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Picks the replica a call goes to: the seam every load-balancing policy plugs into (DESIGN §5). */
public interface ReplicaSelector {
    /**
     * Picks one of {@code candidates} (never empty) for a call of {@code service#partition}. The
     * future never fails; a policy without information falls back to a random candidate.
     */
    CompletableFuture<Replica> select(String service, int partition, List<Replica> candidates);

    /**
     * Picks one of {@code candidates} for a call of {@code service#partition} in {@code serviceClass}.
     * A class-aware policy (random polling, dissertation section 4.3) weighs each replica by the load
     * of that class; the others ignore the class.
     */
    default CompletableFuture<Replica> select(String service, int partition, String serviceClass,
            List<Replica> candidates) {
        return select(service, partition, candidates);
    }

    /**
     * A policy that weighs replicas by the call's service class: it implements the four-argument
     * {@code select} only, and a call that names no class is one of the default class.
     */
    @FunctionalInterface
    interface ClassAware extends ReplicaSelector {
        @Override
        default CompletableFuture<Replica> select(String service, int partition, List<Replica> candidates) {
            return select(service, partition, ServiceClass.DEFAULT_NAME, candidates);
        }

        @Override
        CompletableFuture<Replica> select(String service, int partition, String serviceClass, List<Replica> candidates);
    }
}
