package io.roboco.sandbox.web;

import java.util.List;

/**
 * One live sandbox as the page shows it: never a credential, host port or URL.
 *
 * @param path       the row's URL prefix, {@code /sandboxes/<agent>} (URL-encoded)
 * @param state      {@code live}, {@code failing} or {@code unchecked}
 * @param stateText  what the state means, e.g. "all services answered at 12:03:04 UTC"
 */
public record SandboxRow(String path, String agent, String project, List<Service> services, String age, String created,
                         String state, String stateText) {

    /** @param containerId the short (12-character) container id */
    public record Service(String name, String containerId, String image, List<String> features, Boolean live) {
    }
}
