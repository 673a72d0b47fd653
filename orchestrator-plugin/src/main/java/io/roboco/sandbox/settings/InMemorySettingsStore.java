package io.roboco.sandbox.settings;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A thread-safe settings store that lives and dies with the process: for embedding in a host
 * orchestrator that persists elsewhere, and for unit tests. Lists come back ordered by key; the
 * audit trail keeps the newest {@code auditCapacity} records (default {@value #DEFAULT_AUDIT_CAPACITY}).
 * Sandbox reservations are atomic under the store's monitor.
 */
public final class InMemorySettingsStore implements SettingsStore {
    public static final int DEFAULT_AUDIT_CAPACITY = 10_000;

    private static final Comparator<Entry> NEWEST_FIRST = Comparator.comparingLong(Entry::micros)
            .thenComparingLong(Entry::seq)
            .reversed();

    private final Map<String, Project> projects = new ConcurrentSkipListMap<>();
    private final Map<String, Boolean> flags = new ConcurrentSkipListMap<>();
    private final Map<String, Agent> agents = new ConcurrentSkipListMap<>();
    /** agent → its token. */
    private final Map<String, AgentToken> tokens = new ConcurrentSkipListMap<>();
    /** agent → its current engagement. */
    private final Map<String, String> engagements = new ConcurrentSkipListMap<>();
    /** owner → its client token. */
    private final Map<String, ClientToken> clientTokens = new ConcurrentSkipListMap<>();

    private final Deque<Entry> audit = new ArrayDeque<>();
    /** Sandbox records by id, in insertion (creation) order; guarded by {@code this}. */
    private final Map<String, SandboxRecord> sandboxes = new LinkedHashMap<>();

    private final Map<String, Instant> heartbeats = new ConcurrentSkipListMap<>();
    /** Sealed credential rows by sandbox id and container id, in insertion order; guarded by {@code this}. */
    private final Map<List<String>, SealedContainer> sealed = new LinkedHashMap<>();
    /** Schema snapshots by sandbox and name, in insertion order; guarded by {@code this}. */
    private final Map<List<String>, StoredSnapshot> snapshots = new LinkedHashMap<>();

    private final int auditCapacity;
    private long nextSeq;

    public InMemorySettingsStore() {
        this(DEFAULT_AUDIT_CAPACITY);
    }

    public InMemorySettingsStore(int auditCapacity) {
        if (auditCapacity < 1) {
            throw new IllegalArgumentException("auditCapacity must be at least 1, was " + auditCapacity);
        }
        this.auditCapacity = auditCapacity;
    }

    @Override
    public Optional<Project> findProject(String id) {
        return Optional.ofNullable(projects.get(id));
    }

    @Override
    public List<Project> allProjects() {
        return List.copyOf(projects.values());
    }

    @Override
    public void saveProject(Project project) {
        projects.put(project.id(), project);
    }

    @Override
    public Optional<Boolean> storedFlag(String name) {
        return Optional.ofNullable(flags.get(name));
    }

    @Override
    public void storeFlag(String name, boolean enabled) {
        flags.put(Objects.requireNonNull(name, "name"), enabled);
    }

    @Override
    public Optional<Agent> findAgent(String slug) {
        return Optional.ofNullable(agents.get(slug));
    }

    @Override
    public List<Agent> allAgents() {
        return List.copyOf(agents.values());
    }

    @Override
    public void saveAgent(Agent agent) {
        agents.put(agent.slug(), agent);
    }

    @Override
    public void deleteAgent(String slug) {
        agents.remove(slug);
    }

    @Override
    public synchronized void beginEngagement(String agent, String engagement, Instant started) {
        engagements.put(Objects.requireNonNull(agent, "agent"), Objects.requireNonNull(engagement, "engagement"));
        tokens.remove(agent);
    }

    @Override
    public Optional<String> engagement(String agent) {
        return Optional.ofNullable(engagements.get(agent));
    }

    @Override
    public synchronized boolean endEngagement(String agent) {
        boolean had = engagements.remove(agent) != null;
        return tokens.remove(agent) != null || had;
    }

    @Override
    public synchronized void saveToken(AgentToken token) {
        tokens.put(token.agent(), token);
    }

    @Override
    public Optional<AgentToken> findToken(String digest) {
        return tokens.values().stream().filter(t -> t.digest().equals(digest)).findFirst();
    }

    @Override
    public synchronized boolean deleteToken(String agent) {
        return tokens.remove(agent) != null;
    }

    @Override
    public synchronized void saveClientToken(ClientToken token) {
        clientTokens.put(token.owner(), token);
    }

    @Override
    public Optional<ClientToken> findClientToken(String digest) {
        return clientTokens.values().stream()
                .filter(t -> t.digest().equals(digest))
                .findFirst();
    }

    @Override
    public List<ClientToken> clientTokens() {
        return List.copyOf(clientTokens.values());
    }

    @Override
    public synchronized boolean deleteClientToken(String owner) {
        return clientTokens.remove(owner) != null;
    }

    @Override
    public synchronized void append(AuditRecord record) {
        Objects.requireNonNull(record.time(), "audit record time");
        audit.addLast(new Entry(nextSeq++, record));
        if (audit.size() > auditCapacity) {
            audit.removeFirst();
        }
    }

    @Override
    public List<AuditRecord> recent(String agent, String decision, int limit) {
        return newestFirst(agent, decision).stream()
                .limit(Math.max(limit, 0))
                .map(Entry::record)
                .toList();
    }

    @Override
    public AuditPage page(AuditQuery query) {
        AuditCursor after = query.cursor() == null ? null : AuditCursor.parse(query.cursor());
        List<Entry> matching = newestFirst(query.agent(), query.decision()).stream()
                .filter(e -> after == null || before(e, after))
                .limit(query.limit() + 1L)
                .toList();
        boolean more = matching.size() > query.limit();
        List<Entry> page = more ? matching.subList(0, query.limit()) : matching;
        Entry last = page.isEmpty() ? null : page.get(page.size() - 1);
        return new AuditPage(
                page.stream().map(Entry::record).toList(),
                more ? AuditCursor.after(last.record().time(), last.seq()).toString() : null);
    }

    @Override
    public synchronized int pruneAudit(Instant before, int batch) {
        int removed = 0;
        for (Iterator<Entry> it = audit.iterator(); it.hasNext() && removed < batch; ) {
            if (it.next().record().time().isBefore(before)) {
                it.remove();
                removed++;
            }
        }
        return removed;
    }

    // --- sandboxes ------------------------------------------------------------------------

    @Override
    public synchronized Reservation reserve(SandboxRecord draft, Quota quota) {
        Instant now = draft.created();
        if (sandboxes.containsKey(draft.id())) {
            throw new SettingsStoreException("sandbox id " + draft.id() + " is already taken");
        }
        List<SandboxRecord> ownerLive = sandboxes.values().stream()
                .filter(r -> r.owner().equals(draft.owner()) && r.isLive(now))
                .toList();
        if (draft.claimsItsName()) {
            Optional<SandboxRecord> taken = sandboxes.values().stream()
                    .filter(r ->
                            r.owner().equals(draft.owner()) && r.name().equals(draft.name()) && r.deleted() == null)
                    .findFirst();
            if (taken.isPresent()) {
                return new Reservation.NameTaken(taken.get());
            }
        }
        if (ownerLive.size() >= quota.perOwner()) {
            return new Reservation.OverQuota("owner", quota.perOwner(), ownerLive.size(), ownerLive);
        }
        if (quota.perProject() > 0) {
            long projectLive = sandboxes.values().stream()
                    .filter(r -> r.project().equals(draft.project()) && r.isLive(now))
                    .count();
            if (projectLive >= quota.perProject()) {
                return new Reservation.OverQuota("project", quota.perProject(), (int) projectLive, ownerLive);
            }
        }
        sandboxes.put(draft.id(), draft);
        return new Reservation.Reserved(draft);
    }

    @Override
    public synchronized Optional<SandboxRecord> findSandbox(String id) {
        return Optional.ofNullable(sandboxes.get(id));
    }

    @Override
    public synchronized List<SandboxRecord> sandboxes(SandboxQuery query) {
        return sandboxes.values().stream().filter(query::matches).toList();
    }

    @Override
    public synchronized boolean updateSandbox(SandboxRecord record) {
        SandboxRecord current = sandboxes.get(record.id());
        if (current == null || current.deleted() != null) {
            return false;
        }
        sandboxes.put(
                record.id(),
                new SandboxRecord(
                        current.id(),
                        current.owner(),
                        current.project(),
                        current.name(),
                        current.kind(),
                        record.labels(),
                        record.services(),
                        record.containers(),
                        current.instance(),
                        current.created(),
                        record.expires(),
                        current.maxExpires(),
                        null,
                        null));
        return true;
    }

    @Override
    public synchronized boolean markDeleted(String id, Instant when, String reason, boolean onlyIfExpired) {
        SandboxRecord current = sandboxes.get(id);
        if (current == null
                || current.deleted() != null
                || (onlyIfExpired && current.expires().isAfter(when))) {
            return false;
        }
        sandboxes.put(id, current.deletedAt(when, reason));
        dropSealed(id);
        deleteSnapshots(id);
        return true;
    }

    @Override
    public synchronized void forgetSandbox(String id) {
        sandboxes.remove(id);
        dropSealed(id);
        deleteSnapshots(id);
    }

    @Override
    public synchronized int pruneSandboxes(Instant before, int batch) {
        int removed = 0;
        for (Iterator<SandboxRecord> it = sandboxes.values().iterator(); it.hasNext() && removed < batch; ) {
            SandboxRecord r = it.next();
            if (r.deleted() != null && r.deleted().isBefore(before)) {
                it.remove();
                removed++;
            }
        }
        return removed;
    }

    // --- schema snapshots -------------------------------------------------------------------

    @Override
    public synchronized boolean saveSnapshot(StoredSnapshot snapshot, int max) {
        List<String> key = List.of(snapshot.sandbox(), snapshot.name());
        if (!snapshots.containsKey(key) && snapshotNames(snapshot.sandbox()).size() >= max) {
            return false;
        }
        snapshots.put(key, snapshot); // a replacement keeps its place (first write's)
        return true;
    }

    @Override
    public synchronized Optional<StoredSnapshot> findSnapshot(String sandbox, String name) {
        return Optional.ofNullable(snapshots.get(List.of(sandbox, name)));
    }

    @Override
    public synchronized List<String> snapshotNames(String sandbox) {
        return snapshots.keySet().stream()
                .filter(k -> k.get(0).equals(sandbox))
                .map(k -> k.get(1))
                .toList();
    }

    @Override
    public synchronized int deleteSnapshots(String sandbox) {
        int before = snapshots.size();
        snapshots.keySet().removeIf(k -> k.get(0).equals(sandbox));
        return before - snapshots.size();
    }

    // --- sealed credentials -----------------------------------------------------------------

    @Override
    public synchronized void saveSealed(SealedContainer row) {
        sealed.put(List.of(row.sandboxId(), row.containerId()), row); // a replacement keeps its place (first write's)
    }

    @Override
    public synchronized List<SealedContainer> sealedOf(String instance) {
        return sealed.values().stream()
                .filter(r -> r.instance().equals(instance))
                .toList();
    }

    @Override
    public synchronized boolean deleteSealed(String sandboxId, String containerId) {
        return sealed.remove(List.of(sandboxId, containerId)) != null;
    }

    @Override
    public synchronized boolean resealIf(String sandboxId, String containerId, String expected, String next) {
        List<String> key = List.of(sandboxId, containerId);
        SealedContainer current = sealed.get(key);
        if (current == null || !current.sealed().equals(expected)) {
            return false;
        }
        sealed.put(key, current.withSealed(next));
        return true;
    }

    private void dropSealed(String sandboxId) {
        sealed.keySet().removeIf(k -> k.get(0).equals(sandboxId));
    }

    @Override
    public void heartbeat(String instance, Instant now) {
        heartbeats.put(instance, now);
    }

    @Override
    public Map<String, Instant> heartbeats() {
        return Map.copyOf(heartbeats);
    }

    private List<Entry> newestFirst(String agent, String decision) {
        List<Entry> snapshot;
        synchronized (this) {
            snapshot = new ArrayList<>(audit);
        }
        return snapshot.stream()
                .filter(e -> blank(agent) || agent.equals(e.record().agent()))
                .filter(e -> blank(decision) || decision.equals(e.record().decision()))
                .sorted(NEWEST_FIRST)
                .toList();
    }

    /** Whether {@code e} comes after {@code cursor} in newest-first order (older, or as old and appended earlier). */
    private static boolean before(Entry e, AuditCursor cursor) {
        return e.micros() < cursor.epochMicros() || (e.micros() == cursor.epochMicros() && e.seq() < cursor.id());
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** Ordered by time to the microsecond (as the JDBC store keeps it), then by append order. */
    private record Entry(long seq, AuditRecord record) {
        long micros() {
            return ChronoUnit.MICROS.between(Instant.EPOCH, record.time());
        }
    }
}
