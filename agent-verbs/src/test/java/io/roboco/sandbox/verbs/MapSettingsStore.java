package io.roboco.sandbox.verbs;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A settings store in maps, for unit tests. */
public final class MapSettingsStore implements SettingsStore {
    private final Map<String, Project> projects = new ConcurrentHashMap<>();
    private final Map<String, Boolean> flags = new ConcurrentHashMap<>();
    private final Map<String, Agent> agents = new ConcurrentHashMap<>();
    private final List<AuditRecord> audit = new ArrayList<>();

    @Override public Optional<Project> findProject(String id) { return Optional.ofNullable(projects.get(id)); }
    @Override public List<Project> allProjects() { return projects.values().stream().sorted(Comparator.comparing(Project::id)).toList(); }
    @Override public void saveProject(Project project) { projects.put(project.id(), project); }
    @Override public Optional<Boolean> storedFlag(String name) { return Optional.ofNullable(flags.get(name)); }
    @Override public void storeFlag(String name, boolean enabled) { flags.put(name, enabled); }
    /** Counts agent look-ups; from call number {@link #failFindAgentFromCall} on, look-ups throw (a store outage). */
    public final AtomicInteger findAgentCalls = new AtomicInteger();
    public volatile int failFindAgentFromCall = Integer.MAX_VALUE;

    @Override
    public Optional<Agent> findAgent(String slug) {
        if (findAgentCalls.incrementAndGet() >= failFindAgentFromCall) {
            throw new IllegalStateException("settings store unavailable");
        }
        return Optional.ofNullable(agents.get(slug));
    }
    @Override public List<Agent> allAgents() { return List.copyOf(agents.values()); }
    @Override public void saveAgent(Agent agent) { agents.put(agent.slug(), agent); }
    @Override public void deleteAgent(String slug) { agents.remove(slug); }

    @Override
    public synchronized void append(AuditRecord record) {
        audit.add(record);
    }

    @Override
    public synchronized List<AuditRecord> recent(String agent, String decision, int limit) {
        List<AuditRecord> out = new ArrayList<>();
        for (int i = audit.size() - 1; i >= 0 && out.size() < limit; i--) {
            AuditRecord r = audit.get(i);
            if ((agent == null || agent.isBlank() || agent.equals(r.agent())) && (decision == null || decision.isBlank() || decision.equals(r.decision()))) {
                out.add(r);
            }
        }
        return out;
    }
}
