package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.settings.SandboxRecord;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one registry of the sandboxes this process holds, whatever their kind, beside the {@code ContainerLedger} (which
 * says why each container is ours; this says which sandbox it serves and with what credentials). A sandbox is its
 * owner's sandbox of one name: an agent's verb set is the one named {@value SandboxName#DEFAULT}, looked up by its owner
 * ({@link #set}); any sandbox is looked up by its id ({@link #find}). Each entry carries the sandbox's record as last
 * written (none when the plugin keeps no records) and its services with their credentials (none while this process
 * does not hold them: a named sandbox taken on at a restart that did not re-adopt it). Credentials live here only, in
 * memory, never written anywhere. Thread-safe; the manager's per-owner locks order the changes of one sandbox.
 */
public final class LiveSandboxes {
    private final ConcurrentHashMap<Key, Live> live = new ConcurrentHashMap<>();

    /** The manager over this registry, sharing it with {@code admission} (the sandbox book made over it too). */
    public SandboxManager manager(
            EngineRegistry registry, ServiceProvisioner provisioner, Clock clock, WarmPool pool, Admission admission) {
        return new SandboxManager(registry, provisioner, clock, pool, admission, this);
    }

    /**
     * An owner's sandbox of one name: unique among the owner's undeleted sandboxes (the store keeps it so); an unnamed
     * one is known by its id (a '#' before it, which no name has).
     */
    private record Key(String owner, String name) {
        static Key of(SandboxRecord r) {
            return new Key(r.owner(), r.name().isEmpty() ? "#" + r.id() : r.name());
        }

        static Key verbSet(String owner) {
            return new Key(owner, SandboxName.DEFAULT);
        }
    }

    /**
     * One live sandbox.
     *
     * @param record its record as last written; null when the plugin keeps no records
     * @param set    its services with their credentials, as last verified; null while this process does not hold them
     */
    public record Live(SandboxRecord record, AgentSandbox set) {
        public Live {
            if (record == null && set == null) {
                throw new IllegalArgumentException("a live sandbox has a record, a set of services, or both");
            }
        }

        public String id() {
            return record != null ? record.id() : set.id();
        }

        /** Its services with their credentials, when this process holds them. */
        public Optional<Map<String, ServiceInstance>> services() {
            return set == null ? Optional.empty() : Optional.of(set.services());
        }

        /** The containers it runs: those its services hold, and those its record names. */
        public Set<String> containerIds() {
            Set<String> ids = new LinkedHashSet<>();
            if (set != null) {
                ids.addAll(set.containerIds());
            }
            if (record != null) {
                ids.addAll(record.containerIds());
            }
            return ids;
        }
    }

    // --- an owner's verb set (its sandbox named default) ----------------------------------------

    /** The verb set of {@code owner}, as last verified (no live check). */
    public Optional<AgentSandbox> set(String owner) {
        return Optional.ofNullable(live.get(Key.verbSet(owner))).map(Live::set);
    }

    /** Every verb set held. */
    public List<AgentSandbox> sets() {
        List<AgentSandbox> out = new ArrayList<>();
        live.forEach((key, l) -> {
            if (key.name().equals(SandboxName.DEFAULT) && l.set() != null) {
                out.add(l.set());
            }
        });
        return out;
    }

    /** {@code set} is its owner's verb set now; its record (written at admission) is kept when it is that set's. */
    void putSet(AgentSandbox set) {
        live.compute(
                Key.verbSet(set.agent()),
                (k, old) -> new Live(
                        old != null && old.record() != null && old.record().id().equals(set.id()) ? old.record() : null,
                        set));
    }

    /** {@code next} replaces {@code current} as its owner's verb set, if {@code current} is still it. */
    void replaceSet(AgentSandbox current, AgentSandbox next) {
        live.computeIfPresent(
                Key.verbSet(current.agent()),
                (k, old) -> current.equals(old.set()) ? new Live(old.record(), next) : old);
    }

    /** Drops {@code owner}'s verb set, returning it (null when there was none). */
    AgentSandbox removeSet(String owner) {
        Live removed = live.remove(Key.verbSet(owner));
        return removed == null ? null : removed.set();
    }

    /** Drops {@code set} if it is still its owner's verb set. */
    void removeSet(AgentSandbox set) {
        live.computeIfPresent(Key.verbSet(set.agent()), (k, old) -> set.equals(old.set()) ? null : old);
    }

    // --- any sandbox, by its record --------------------------------------------------------------

    /**
     * {@code record} is its sandbox's as last written: entered (admitted, taken on at a restart) or updated. The services
     * held stay when they are that sandbox's; their expiry follows the record's.
     */
    public void putRecord(SandboxRecord record) {
        live.compute(Key.of(record), (k, old) -> new Live(record, setOf(old, record)));
    }

    /** As {@link #putRecord}, only for a sandbox already here (an operator changed it: extended it). */
    public void updateRecord(SandboxRecord record) {
        live.computeIfPresent(
                Key.of(record), (k, old) -> old.id().equals(record.id()) ? new Live(record, setOf(old, record)) : old);
    }

    /**
     * A sandbox's services now run and are held (a named sandbox created, or re-adopted after a restart): entered with
     * its record and credentials.
     */
    public void hold(SandboxRecord record, Map<String, ServiceInstance> services) {
        live.put(
                Key.of(record),
                new Live(
                        record,
                        new AgentSandbox(
                                record.owner(),
                                record.project(),
                                services,
                                record.created(),
                                record.id(),
                                record.expires())));
    }

    /** Drops sandbox {@code id} (ended, abandoned, forgotten); returns what was held for it. */
    public Optional<Live> forget(String id) {
        for (Map.Entry<Key, Live> e : live.entrySet()) {
            if (e.getValue().id().equals(id) && live.remove(e.getKey(), e.getValue())) {
                return Optional.of(e.getValue());
            }
        }
        return Optional.empty();
    }

    // --- reads -----------------------------------------------------------------------------------

    /** Sandbox {@code id}, when this process holds it. */
    public Optional<Live> find(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            return Optional.empty();
        }
        return live.values().stream().filter(l -> l.id().equals(id)).findFirst();
    }

    /** The record of sandbox {@code id} as last written here. */
    public Optional<SandboxRecord> record(String id) {
        return find(id).map(Live::record);
    }

    /** The services (and credentials) of sandbox {@code id}, when this process holds them. */
    public Optional<Map<String, ServiceInstance>> services(String id) {
        return find(id).flatMap(Live::services);
    }

    /** Every sandbox held. */
    public List<Live> all() {
        return List.copyOf(live.values());
    }

    /** Every container of every sandbox held. */
    public Set<String> containerIds() {
        Set<String> ids = new LinkedHashSet<>();
        live.values().forEach(l -> ids.addAll(l.containerIds()));
        return ids;
    }

    private static AgentSandbox setOf(Live old, SandboxRecord record) {
        if (old == null || old.set() == null || !old.set().id().equals(record.id())) {
            return null;
        }
        return old.set().withExpires(record.expires());
    }
}
