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

    /**
     * What kind of sandbox it is, as properties the code reads rather than branches it takes: how it is shown, and
     * whether it ends with the process that held its credentials.
     */
    public enum Kind {
        /** An agent's verb set: its credentials are handed out again on each call, so only its process holds them. */
        DEFAULT(true, true),
        /** Made by name: its owner holds the credentials it was answered once, so it outlives the process that made it. */
        NAMED(false, false);

        private final boolean endsWithItsProcess;
        private final boolean ownersLock;

        Kind(boolean endsWithItsProcess, boolean ownersLock) {
            this.endsWithItsProcess = endsWithItsProcess;
            this.ownersLock = ownersLock;
        }

        /**
         * True when the work on it is ordered by its owner's lock (the owner's {@code request_sandbox} and release take
         * it, so its owner's next call learns that it expired); otherwise by a lock of its own.
         */
        public boolean ownersLock() {
            return ownersLock;
        }

        /**
         * True when a restart that does not re-adopt it (or finds no sealed credentials for it) must end it: nobody else
         * holds its credentials. A named sandbox's owner does, so it is taken on instead.
         */
        public boolean endsWithItsProcess() {
            return endsWithItsProcess;
        }

        /** The kind of the sandbox called {@code name}: an agent's verb set is its sandbox named {@code default}. */
        public static Kind of(String name) {
            return DEFAULT_NAME.equals(name) ? DEFAULT : NAMED;
        }

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

    /**
     * True when this sandbox holds its name among its owner's undeleted sandboxes (a store refuses a second one of that
     * name): a named sandbox with a name. A verb set is its owner's one sandbox named default by construction.
     */
    public boolean claimsItsName() {
        return kind == Kind.NAMED && !name.isEmpty();
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
