package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A thread-safe settings store that lives and dies with the process: for embedding in a host
 * orchestrator that persists elsewhere, and for unit tests. Lists come back ordered by key; the
 * audit trail keeps the newest {@code auditCapacity} records (default {@value #DEFAULT_AUDIT_CAPACITY}).
 */
public final class InMemorySettingsStore implements SettingsStore {
    public static final int DEFAULT_AUDIT_CAPACITY = 10_000;

    private static final Comparator<Entry> NEWEST_FIRST =
            Comparator.comparing((Entry e) -> e.record().time()).thenComparingLong(Entry::seq).reversed();

    private final Map<String, Project> projects = new ConcurrentSkipListMap<>();
    private final Map<String, Boolean> flags = new ConcurrentSkipListMap<>();
    private final Map<String, Agent> agents = new ConcurrentSkipListMap<>();
    /** agent → token digest. */
    private final Map<String, String> tokens = new ConcurrentSkipListMap<>();
    private final Deque<Entry> audit = new ArrayDeque<>();
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
    public void saveToken(String agent, String digest, Instant created) {
        tokens.put(Objects.requireNonNull(agent, "agent"), Objects.requireNonNull(digest, "digest"));
    }

    @Override
    public Optional<String> agentForToken(String digest) {
        return tokens.entrySet().stream().filter(e -> e.getValue().equals(digest)).map(Map.Entry::getKey).findFirst();
    }

    @Override
    public boolean deleteToken(String agent) {
        return tokens.remove(agent) != null;
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
        List<Entry> snapshot;
        synchronized (this) {
            snapshot = new ArrayList<>(audit);
        }
        return snapshot.stream()
                .filter(e -> blank(agent) || agent.equals(e.record().agent()))
                .filter(e -> blank(decision) || decision.equals(e.record().decision()))
                .sorted(NEWEST_FIRST)
                .limit(Math.max(limit, 0))
                .map(Entry::record)
                .toList();
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private record Entry(long seq, AuditRecord record) {
    }
}
