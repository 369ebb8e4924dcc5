/**
 * The multi-tier example: a front service whose read serves a page by calling the discussion
 * group and the auction at once (fan-out) and merging their answers (aggregation), reporting a
 * part that failed or timed out as missing instead of failing the page.
 *
 * <p>Starting points: {@link io.neptune.examples.front.FrontService}.
 */
@NullMarked
package io.neptune.examples.front;

import org.jspecify.annotations.NullMarked;
