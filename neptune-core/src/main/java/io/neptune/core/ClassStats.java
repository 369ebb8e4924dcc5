package io.neptune.core;

/**
 * What one service class got from one hosted service's scheduler since the node started
 * (dissertation section 4.5's measures): what arrived, what was served in time, what was dropped
 * and why, and the yield offered against the yield realised.
 *
 * @param serviceClass the class name
 * @param guaranteedShare the share of the workers' time the class is guaranteed
 * @param share the share of the workers' time the class used recently (time-decayed, β = 0.95 per
 *     second, equation 4.4.3), from 0 to 1: how long its requests held a worker, running ones
 *     included, not their CPU time
 * @param queued requests of the class waiting now
 * @param arrivals requests of the class that reached the queue (refused ones included)
 * @param completed requests that ran to an answer, failed ones included
 * @param droppedLowYield requests dropped by the scheduler because their expected yield fell to (about) zero
 * @param droppedQueueFull requests refused because the queue was full, or pushed out of it by a
 *     request of a class further below its share of the queue, or replicated writes refused because
 *     {@code queue-capacity} writes were in progress (OVERLOADED)
 * @param droppedDeadline requests whose caller's deadline passed before a worker took them (answered
 *     by the worker, or by an offer that found them at the head of the queue)
 * @param offeredYield the full yield of every arrival: what the class would be worth served at once
 * @param realizedYield the yield of the requests answered successfully, at their response times: a
 *     failed or refused request realises none
 * @param usedSeconds the resources the completed requests used, in seconds (their worker threads'
 *     CPU time, or what the service reported): with {@code completed}, the class's mean cost per request
 */
public record ClassStats(String serviceClass, double guaranteedShare, double share, int queued, long arrivals,
        long completed, long droppedLowYield, long droppedQueueFull, long droppedDeadline, double offeredYield,
        double realizedYield, double usedSeconds) {

    /** Every request that was not served: dropped by the scheduler, refused, or expired. */
    public long dropped() {
        return droppedLowYield + droppedQueueFull + droppedDeadline;
    }

    /**
     * LossPercent (dissertation section 4.5.2): the share of the offered yield that was not realised,
     * from 0 to 100; 0 when nothing was offered.
     */
    public double lossPercent() {
        return offeredYield == 0 ? 0 : 100 * (offeredYield - realizedYield) / offeredYield;
    }
}
