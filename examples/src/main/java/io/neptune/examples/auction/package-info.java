/**
 * The auction example (dissertation §5.3): categories partitioned over a level-3 replicated
 * service on H2 with a one-second staleness bound; item ids carry their partition.
 *
 * <p>Starting points: {@link io.neptune.examples.auction.AuctionService}.
 */
@NullMarked
package io.neptune.examples.auction;

import org.jspecify.annotations.NullMarked;
