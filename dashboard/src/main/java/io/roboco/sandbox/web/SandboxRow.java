package io.roboco.sandbox.web;

import java.util.List;

/**
 * One sandbox as the page shows it: never a credential, host port or URL.
 *
 * @param path       the verb set's URL prefix, {@code /sandboxes/<agent>} (URL-encoded); for verify and release
 * @param recordPath the record's URL prefix, {@code /sandboxes/id/<sbx_…>}; for extend and delete
 * @param kind       {@code default} (an agent's request_sandbox set) or {@code named}
 * @param labels     {@code key=value} each
 * @param lifeState  {@code live} or {@code expired}
 * @param expiresIn  e.g. "3h 12m", or "expired 2m ago"
 * @param state      {@code live}, {@code failing} or {@code unchecked} (a verb set's last on-demand verification)
 * @param stateText  what the state means, e.g. "all services answered at 12:03:04 UTC"
 */
public record SandboxRow(
        String path,
        String recordPath,
        String id,
        String agent,
        String name,
        String kind,
        String project,
        List<String> labels,
        List<Service> services,
        String age,
        String created,
        String expires,
        String expiresIn,
        String lifeState,
        String state,
        String stateText) {

    /**
     * @param containerId the short (12-character) container id
     * @param version     the engine and major its image runs, e.g. {@code PostgreSQL 17}; empty when the image does not say
     * @param seed        how the seed it started with reads ({@code sql (120 bytes)}); empty for none
     */
    public record Service(
            String name,
            String containerId,
            String image,
            List<String> features,
            Boolean live,
            String version,
            String seed) {}

    public boolean verbSet() {
        return "default".equals(kind);
    }

    public boolean live() {
        return "live".equals(lifeState);
    }
}
