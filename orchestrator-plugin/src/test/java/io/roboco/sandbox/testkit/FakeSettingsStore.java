package io.roboco.sandbox.testkit;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AgentToken;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.ClientToken;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.Reservation;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.settings.SettingsStoreException;
import io.roboco.sandbox.settings.StoredSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The settings-store fake: the product's {@link InMemorySettingsStore} (what an embedding host gets when
 * it persists nothing) plus the faults a test scripts. It keeps no data of its own, so there is one
 * in-memory store implementation; both pass {@link SettingsStoreContract}.
 *
 * <p>Scriptable: agent look-ups fail after a number of further successful ones ({@link #failAgentReadsAfter}),
 * as when the database goes away mid-request. Counts agent look-ups ({@link #agentReads()}). A method added
 * to the {@link SettingsStore} SPI is delegated here too (the compiler says so), and scripted here if a test
 * needs it to fail.
 */
public final class FakeSettingsStore implements SettingsStore {
    /** The message of a scripted fault; it never reaches an HTTP answer. */
    public static final String OUTAGE = "settings store unavailable (a fault scripted by the test)";

    private final SettingsStore delegate;
    private final AtomicInteger agentReads = new AtomicInteger();
    private volatile int failAgentReadsFrom = Integer.MAX_VALUE;

    public FakeSettingsStore() {
        this(new InMemorySettingsStore());
    }

    public FakeSettingsStore(SettingsStore delegate) {
        this.delegate = delegate;
    }

    /** The next {@code successes} agent look-ups answer; every one after them throws {@link SettingsStoreException}. */
    public FakeSettingsStore failAgentReadsAfter(int successes) {
        failAgentReadsFrom = agentReads.get() + successes + 1;
        return this;
    }

    /** Agent look-ups answer again. */
    public FakeSettingsStore heal() {
        failAgentReadsFrom = Integer.MAX_VALUE;
        return this;
    }

    /** Agent look-ups ({@link #findAgent}) so far, failed ones included. */
    public int agentReads() {
        return agentReads.get();
    }

    @Override
    public Optional<Agent> findAgent(String slug) {
        if (agentReads.incrementAndGet() >= failAgentReadsFrom) {
            throw new SettingsStoreException(OUTAGE);
        }
        return delegate.findAgent(slug);
    }

    @Override
    public Optional<Project> findProject(String id) {
        return delegate.findProject(id);
    }

    @Override
    public List<Project> allProjects() {
        return delegate.allProjects();
    }

    @Override
    public void saveProject(Project project) {
        delegate.saveProject(project);
    }

    @Override
    public Optional<Boolean> storedFlag(String name) {
        return delegate.storedFlag(name);
    }

    @Override
    public void storeFlag(String name, boolean enabled) {
        delegate.storeFlag(name, enabled);
    }

    @Override
    public List<Agent> allAgents() {
        return delegate.allAgents();
    }

    @Override
    public void saveAgent(Agent agent) {
        delegate.saveAgent(agent);
    }

    @Override
    public void deleteAgent(String slug) {
        delegate.deleteAgent(slug);
    }

    @Override
    public void beginEngagement(String agent, String engagement, Instant started) {
        delegate.beginEngagement(agent, engagement, started);
    }

    @Override
    public Optional<String> engagement(String agent) {
        return delegate.engagement(agent);
    }

    @Override
    public boolean endEngagement(String agent) {
        return delegate.endEngagement(agent);
    }

    @Override
    public void saveToken(AgentToken token) {
        delegate.saveToken(token);
    }

    @Override
    public Optional<AgentToken> findToken(String digest) {
        return delegate.findToken(digest);
    }

    @Override
    public boolean deleteToken(String agent) {
        return delegate.deleteToken(agent);
    }

    @Override
    public void saveClientToken(ClientToken token) {
        delegate.saveClientToken(token);
    }

    @Override
    public Optional<ClientToken> findClientToken(String digest) {
        return delegate.findClientToken(digest);
    }

    @Override
    public List<ClientToken> clientTokens() {
        return delegate.clientTokens();
    }

    @Override
    public boolean deleteClientToken(String owner) {
        return delegate.deleteClientToken(owner);
    }

    @Override
    public void append(AuditRecord record) {
        delegate.append(record);
    }

    @Override
    public List<AuditRecord> recent(String agent, String decision, int limit) {
        return delegate.recent(agent, decision, limit);
    }

    @Override
    public AuditPage page(AuditQuery query) {
        return delegate.page(query);
    }

    @Override
    public int pruneAudit(Instant before, int batch) {
        return delegate.pruneAudit(before, batch);
    }

    @Override
    public Reservation reserve(SandboxRecord draft, Quota quota) {
        return delegate.reserve(draft, quota);
    }

    @Override
    public Optional<SandboxRecord> findSandbox(String id) {
        return delegate.findSandbox(id);
    }

    @Override
    public List<SandboxRecord> sandboxes(SandboxQuery query) {
        return delegate.sandboxes(query);
    }

    @Override
    public boolean updateSandbox(SandboxRecord record) {
        return delegate.updateSandbox(record);
    }

    @Override
    public boolean markDeleted(String id, Instant when, String reason, boolean onlyIfExpired) {
        return delegate.markDeleted(id, when, reason, onlyIfExpired);
    }

    @Override
    public void forgetSandbox(String id) {
        delegate.forgetSandbox(id);
    }

    @Override
    public int pruneSandboxes(Instant before, int batch) {
        return delegate.pruneSandboxes(before, batch);
    }

    @Override
    public void heartbeat(String instance, Instant now) {
        delegate.heartbeat(instance, now);
    }

    @Override
    public Map<String, Instant> heartbeats() {
        return delegate.heartbeats();
    }

    @Override
    public void saveSealed(SealedContainer row) {
        delegate.saveSealed(row);
    }

    @Override
    public List<SealedContainer> sealedOf(String instance) {
        return delegate.sealedOf(instance);
    }

    @Override
    public boolean deleteSealed(String sandboxId, String containerId) {
        return delegate.deleteSealed(sandboxId, containerId);
    }

    @Override
    public boolean resealIf(String sandboxId, String containerId, String expected, String next) {
        return delegate.resealIf(sandboxId, containerId, expected, next);
    }

    @Override
    public boolean saveSnapshot(StoredSnapshot snapshot, int max) {
        return delegate.saveSnapshot(snapshot, max);
    }

    @Override
    public Optional<StoredSnapshot> findSnapshot(String sandbox, String name) {
        return delegate.findSnapshot(sandbox, name);
    }

    @Override
    public List<String> snapshotNames(String sandbox) {
        return delegate.snapshotNames(sandbox);
    }

    @Override
    public int deleteSnapshots(String sandbox) {
        return delegate.deleteSnapshots(sandbox);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
