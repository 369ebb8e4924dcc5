/**
 * The discussion group example (dissertation §5.3): topics partitioned over a level-2 replicated
 * service on H2; messages form a reply-to hierarchy.
 *
 * <p>Starting points: {@link io.neptune.examples.discussion.DiscussionService}.
 */
@NullMarked
package io.neptune.examples.discussion;

import org.jspecify.annotations.NullMarked;
