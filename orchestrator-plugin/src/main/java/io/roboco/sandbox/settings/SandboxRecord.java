package io.roboco.sandbox.settings;

import io.roboco.sandbox.request.SandboxName;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A sandbox as the settings store keeps it: who owns it, what it runs, until when. Never a credential
 * (they exist only in the answer that created the sandbox).
 *
 * @param kind        {@link Kind#DEFAULT} for an agent's {@code request_sandbox} set (owner = the agent's slug,
 *                    at most one live per owner and instance), {@link Kind#NAMED} for one made through the API
 * @param instance    the server instance whose containers these are ({@code roboco.sandbox.instance})
 * @param expires     past this moment the sandbox is expired; a verb set's expiry slides, never past {@code maxExpires}
 * @param maxExpires  created + the longest TTL the project allows; no renewal or extension goes past it
 * @param deleted     when its containers were removed (null while it is live or expired)
 * @param deletedReason why: released, deleted, expired, provisioning failed, …
 */
public record SandboxRecord(
        String id,
        String owner,
        String project,
        String name,
        Kind kind,
        Map<String, String> labels,
        List<String> services,
        List<ContainerRef> containers,
        String instance,
        Instant created,
        Instant expires,
        Instant maxExpires,
        Instant deleted,
        String deletedReason) {
    /** The name every agent's verb set carries. */
    public static final String DEFAULT_NAME = SandboxName.DEFAULT;

    public enum Kind {
        DEFAULT,
        NAMED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public SandboxRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(expires, "expires");
        Objects.requireNonNull(maxExpires, "maxExpires");
        name = name == null ? "" : name;
        labels = labels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(labels));
        services = services == null ? List.of() : List.copyOf(services);
        containers = containers == null ? List.of() : List.copyOf(containers);
        deletedReason = deleted == null ? null : deletedReason == null ? "" : deletedReason;
    }

    public SandboxState state(Instant now) {
        if (deleted != null) {
            return SandboxState.DELETED;
        }
        return now.isBefore(expires) ? SandboxState.LIVE : SandboxState.EXPIRED;
    }

    public boolean isLive(Instant now) {
        return state(now) == SandboxState.LIVE;
    }

    public List<String> containerIds() {
        return containers.stream().map(ContainerRef::containerId).toList();
    }

    public SandboxRecord withContainers(List<String> newServices, List<ContainerRef> newContainers) {
        return new SandboxRecord(
                id,
                owner,
                project,
                name,
                kind,
                labels,
                newServices,
                newContainers,
                instance,
                created,
                expires,
                maxExpires,
                deleted,
                deletedReason);
    }

    public SandboxRecord withExpires(Instant newExpires) {
        return new SandboxRecord(
                id,
                owner,
                project,
                name,
                kind,
                labels,
                services,
                containers,
                instance,
                created,
                newExpires,
                maxExpires,
                deleted,
                deletedReason);
    }

    public SandboxRecord withLabels(Map<String, String> newLabels) {
        return new SandboxRecord(
                id,
                owner,
                project,
                name,
                kind,
                newLabels,
                services,
                containers,
                instance,
                created,
                expires,
                maxExpires,
                deleted,
                deletedReason);
    }

    public SandboxRecord deletedAt(Instant when, String reason) {
        return new SandboxRecord(
                id,
                owner,
                project,
                name,
                kind,
                labels,
                services,
                containers,
                instance,
                created,
                expires,
                maxExpires,
                when,
                reason);
    }
}
