package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A node's yellow page as it hands it over its request port to a client outside the cluster (a
 * thin client, which joins no JGroups channel): the answer to a request of method {@value #METHOD}
 * to the reserved service {@value #SERVICE}, encoded as JSON. Any caller the request port accepts
 * may ask; the page says no more than the announcements every member hears
 * ({@code docs/protocols/directory.md}).
 *
 * @param node the node that answered
 * @param announcements every announcement in its yellow page, its own among them
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer node may say more; an older client must still read it
public record DirectoryPage(String node, List<Announcement> announcements) {
    /** The reserved service name of the directory (no user service can take a name starting with {@code $}). */
    public static final String SERVICE = "$directory";
    /** The method that answers with the page. */
    public static final String METHOD = "page";

    /** Validates the fields. */
    public DirectoryPage {
        requireNonNull(node, "node");
        announcements = List.copyOf(announcements);
    }
}
