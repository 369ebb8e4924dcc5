/** The README's quick start, compiled and tested so it never goes stale. */
@NullMarked
package io.neptune.examples.quickstart;

import org.jspecify.annotations.NullMarked;
