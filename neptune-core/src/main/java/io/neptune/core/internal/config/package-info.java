/** Reading config files into the config records' builders, with errors that name the key. Internal. */
@NullMarked
package io.neptune.core.internal.config;

import org.jspecify.annotations.NullMarked;
