/** The one place Jackson is configured for payloads, announcements and config files. Internal. */
@NullMarked
package io.neptune.core.internal.json;

import org.jspecify.annotations.NullMarked;
