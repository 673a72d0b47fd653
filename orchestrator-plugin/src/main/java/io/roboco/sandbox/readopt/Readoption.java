package io.roboco.sandbox.readopt;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.secrets.UnsealException;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-adoption at start, before the first verb is served: every sandbox record of this instance is checked as the
 * liveness check does — each container runs, and its stored (sealed) agent credential logs in. A live sandbox, whatever
 * its kind, goes back into the registry of live sandboxes ({@link SandboxManager#adopt}) with its features, its expiry
 * and the liveness session the check opened, so its owner's next call (a verb set's {@code request_sandbox}, a named
 * one's data operation) is answered with the same credentials. A dead one (a container gone or not answering, a
 * credential that does not open: wrong key, altered, copied from another row) is closed: its record marked deleted,
 * its containers removed; the agent's next call provisions afresh. Idle warm-pool containers are taken back into the
 * pool when it still keeps their image and has room, else removed. Until each container is decided it is in the
 * ledger as {@link ContainerLedger.Reason#ADOPTING}, so the janitor never takes it. Only this instance's records and
 * rows are read: another instance sharing the store is never touched.
 */
public final class Readoption {
    private static final Logger log = LoggerFactory.getLogger(Readoption.class);
    /** The verb of re-adoption's audit records. */
    public static final String AUDIT_VERB = "server_restart";

    private static final int CHECK_THREADS = 8;

    private final SettingsStore store;
    private final CredentialVault vault;
    private final KeyStatus key;
    private final EngineRegistry registry;
    private final ServiceProvisioner provisioner;
    private final SandboxManager manager;
    private final SandboxBook book;
    private final WarmPool pool;
    private final Clock clock;
    private final AuditTrail audit;
    private final String instance;
    private final ContainerLedger ledger;

    /**
     * @param vault null when the key is unusable ({@code key} says why): then nothing opens and every sealed sandbox is dead
     * @param pool  null when no warm pool is configured (idle pool containers found are removed)
     */
    public Readoption(
            SettingsStore store,
            CredentialVault vault,
            KeyStatus key,
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            SandboxManager manager,
            SandboxBook book,
            WarmPool pool,
            Clock clock,
            Consumer<AuditRecord> audit) {
        this(store, vault, key, registry, provisioner, manager, book, pool, clock, AuditTrail.to(audit, clock));
    }

    /** With the plugin's audit trail, which builds and writes re-adoption's records. */
    public Readoption(
            SettingsStore store,
            CredentialVault vault,
            KeyStatus key,
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            SandboxManager manager,
            SandboxBook book,
            WarmPool pool,
            Clock clock,
            AuditTrail audit) {
        this.store = store;
        this.vault = vault;
        this.key = key;
        this.registry = registry;
        this.provisioner = provisioner;
        this.manager = manager;
        this.book = book;
        this.pool = pool;
        this.clock = clock;
        this.audit = audit;
        this.instance = book.instance();
        this.ledger = provisioner.ledger();
    }

    /** What one record's check found. */
    private sealed interface Verdict {
        record Live(Map<String, ServiceInstance> services) implements Verdict {}

        /** A named sandbox without sealed rows (made before they were kept, or their write failed): kept unchecked. */
        record Unchecked() implements Verdict {}

        record Dead(String reason) implements Verdict {}
    }

    public ReadoptionReport run() throws InterruptedException {
        long t0 = System.nanoTime();
        Instant now = clock.instant();
        List<SandboxRecord> records = store.sandboxes(SandboxQuery.undeletedOf(instance, now));
        List<SealedContainer> rows = store.sealedOf(instance);
        Map<String, List<SealedContainer>> bySandbox = new LinkedHashMap<>();
        rows.forEach(r ->
                bySandbox.computeIfAbsent(r.sandboxId(), k -> new ArrayList<>()).add(r));
        guard(records, rows);
        KeyTally keys = new KeyTally(key, vault == null ? null : vault.cipher(), instance);

        int readopted = 0;
        int readoptedContainers = 0;
        int unchecked = 0;
        int removed = 0;
        List<String> closed = new ArrayList<>();
        ExecutorService checks = Executors.newFixedThreadPool(CHECK_THREADS, r -> {
            Thread t = new Thread(r, "sandbox-readopt-check");
            t.setDaemon(true);
            return t;
        });
        try {
            Map<SandboxRecord, Future<Verdict>> verdicts = new LinkedHashMap<>();
            Map<SandboxRecord, List<SealedContainer>> rowsOf = new LinkedHashMap<>();
            for (SandboxRecord r : records) {
                List<SealedContainer> own = bySandbox.remove(r.id());
                rowsOf.put(r, own == null ? List.of() : own);
                verdicts.put(r, checks.submit(() -> check(r, rowsOf.get(r), now, keys)));
            }
            List<SealedContainer> poolRows =
                    Optional.ofNullable(bySandbox.remove(SealedContainer.POOL)).orElse(List.of());
            Map<SealedContainer, Future<Optional<ServiceInstance>>> poolChecks = new LinkedHashMap<>();
            for (SealedContainer row : poolRows) {
                poolChecks.put(row, checks.submit(() -> checkPooled(row, keys)));
            }

            // One live sandbox per owner and name (a verb set is its owner's sandbox named default).
            Set<String> adoptedNames = new HashSet<>();
            for (Map.Entry<SandboxRecord, Future<Verdict>> v : verdicts.entrySet()) {
                SandboxRecord r = v.getKey();
                Verdict verdict = await(v.getValue(), r);
                if (verdict instanceof Verdict.Live live
                        && !adoptedNames.add(r.owner() + "/" + (r.name().isEmpty() ? r.id() : r.name()))) {
                    verdict = new Verdict.Dead("agent " + r.owner() + " has another live set, re-adopted instead");
                }
                if (verdict instanceof Verdict.Live live) {
                    manager.adopt(r, live.services());
                    readopted++;
                    readoptedContainers += live.services().size();
                    record(
                            r,
                            "readopted",
                            "sandbox " + r.id() + " re-adopted after a restart: "
                                    + live.services().size() + " container(s) live, same credentials",
                            t0);
                } else if (verdict instanceof Verdict.Unchecked) {
                    book.takeOnNamed(r);
                    unchecked++;
                } else {
                    String reason = ((Verdict.Dead) verdict).reason();
                    removed += close(r, rowsOf.get(r), reason, now);
                    closed.add(r.id() + " (" + r.owner() + "): " + reason);
                    record(
                            r,
                            "closed",
                            "sandbox " + r.id() + " closed at restart: " + reason
                                    + "; the next request provisions a fresh set",
                            t0);
                }
            }

            int poolReadopted = 0;
            for (Map.Entry<SealedContainer, Future<Optional<ServiceInstance>>> p : poolChecks.entrySet()) {
                SealedContainer row = p.getKey();
                Optional<ServiceInstance> answering = awaitPool(p.getValue());
                if (answering.isPresent() && pool != null && pool.adopt(row.owner(), answering.get())) {
                    poolReadopted++;
                } else {
                    forgetRow(row);
                    provisioner.removeQuietly(row.containerId());
                    removed++;
                }
            }
            // Rows whose record is gone or closed (its close did not reach the containers): nothing keeps them.
            for (List<SealedContainer> stray : bySandbox.values()) {
                for (SealedContainer row : stray) {
                    forgetRow(row);
                    provisioner.removeQuietly(row.containerId());
                    removed++;
                }
            }
            for (ContainerLedger.Entry e : ledger.entries()) {
                if (e.reason() == ContainerLedger.Reason.ADOPTING) {
                    ledger.strike(e.containerId());
                }
            }
            String keyWarning = keys.warning(rows.size());
            ReadoptionReport report = new ReadoptionReport(
                    readopted,
                    readoptedContainers,
                    unchecked,
                    closed,
                    poolReadopted,
                    removed,
                    keyWarning,
                    Duration.ofNanos(System.nanoTime() - t0));
            if (keyWarning != null) {
                log.warn(keyWarning);
            }
            if (!records.isEmpty() || !rows.isEmpty()) {
                log.info("re-adoption (instance {}): {}", instance, report.summary());
            }
            return report;
        } finally {
            checks.shutdownNow();
        }
    }

    // --- checks --------------------------------------------------------------------------------

    private Verdict check(SandboxRecord r, List<SealedContainer> rows, Instant now, KeyTally keys) {
        if (r.state(now) == SandboxState.EXPIRED) {
            return new Verdict.Dead("it expired at " + r.expires() + " while the server was down");
        }
        if (rows.isEmpty()) {
            return r.kind().endsWithItsProcess()
                    ? new Verdict.Dead("no sealed credentials were stored for it")
                    : new Verdict.Unchecked();
        }
        if (vault == null) {
            return new Verdict.Dead("its sealed credentials cannot be opened: no usable key");
        }
        if (r.containers().isEmpty()) {
            return new Verdict.Dead("its record names no container");
        }
        Map<String, SealedContainer> byContainer = new TreeMap<>();
        rows.forEach(row -> byContainer.put(row.containerId(), row));
        // Every row is opened (each one that does not open is counted for the key message), then each container
        // checked.
        Map<String, ServiceInstance> services = new TreeMap<>();
        String dead = null;
        for (ContainerRef c : r.containers()) {
            SealedContainer row = byContainer.get(c.containerId());
            if (row == null) {
                dead = dead != null ? dead : "no sealed credential was stored for its " + c.service() + " container";
                continue;
            }
            if (registry.find(row.service()).isEmpty()) {
                dead = dead != null ? dead : "its " + row.service() + " container's engine is no longer registered";
                continue;
            }
            try {
                ServiceInstance instance = provisioner.reachable(registry.require(row.service()), vault.open(row));
                services.put(instance.service(), instance);
            } catch (UnsealException e) {
                keys.failed(row, e);
                dead = dead != null
                        ? dead
                        : "the sealed credential of its " + row.service() + " container does not open ("
                                + e.getMessage() + ")";
            }
        }
        if (dead != null) {
            return new Verdict.Dead(dead);
        }
        for (ServiceInstance instance : services.values()) {
            if (!provisioner.isLive(registry.require(instance.service()), instance)) {
                return new Verdict.Dead("its " + instance.service()
                        + " container is not live (gone, stopped, or its stored credential no" + " longer logs in)");
            }
        }
        return new Verdict.Live(services);
    }

    /** An idle pool container that opens and answers on its admin credential; empty when it does not. */
    private Optional<ServiceInstance> checkPooled(SealedContainer row, KeyTally keys) {
        if (vault == null || pool == null) {
            return Optional.empty();
        }
        Optional<Engine> engine = registry.find(row.service());
        if (engine.isEmpty()) {
            return Optional.empty();
        }
        try {
            ServiceInstance pooled = provisioner.reachable(engine.get(), vault.open(row));
            return provisioner.poolContainerAnswers(engine.get(), pooled) ? Optional.of(pooled) : Optional.empty();
        } catch (UnsealException e) {
            keys.failed(row, e);
            return Optional.empty();
        }
    }

    // --- outcomes ------------------------------------------------------------------------------

    /** Closes a dead sandbox: its record deleted (its rows go with it), every container behind it removed. */
    private int close(SandboxRecord r, List<SealedContainer> rows, String reason, Instant now) {
        try {
            store.markDeleted(r.id(), now, "closed at restart: " + reason, false);
        } catch (RuntimeException e) {
            log.warn(
                    "could not close the record of sandbox {} ({}); its containers are removed anyway",
                    r.id(),
                    e.getMessage());
        }
        Set<String> ids = new TreeSet<>(r.containerIds());
        rows.forEach(row -> ids.add(row.containerId()));
        ids.forEach(provisioner::removeQuietly);
        if (vault != null) {
            vault.forgetSet(ids);
        }
        log.info(
                "sandbox {} of {} closed at restart: {}; {} container(s) removed, its next request provisions a fresh set",
                r.id(),
                r.owner(),
                reason,
                ids.size());
        return ids.size();
    }

    private void forgetRow(SealedContainer row) {
        try {
            store.deleteSealed(row.sandboxId(), row.containerId());
        } catch (RuntimeException e) {
            log.warn("could not delete the sealed credential of container {} ({})", row.containerId(), e.getMessage());
        }
    }

    /** Every container of a record or a row is the instance's until decided: the janitor must not take it meanwhile. */
    private void guard(List<SandboxRecord> records, List<SealedContainer> rows) {
        for (SandboxRecord r : records) {
            r.containerIds().forEach(id -> ledger.enter(id, ContainerLedger.Reason.ADOPTING, r.id()));
        }
        for (SealedContainer row : rows) {
            if (!ledger.owns(row.containerId())) {
                ledger.enter(row.containerId(), ContainerLedger.Reason.ADOPTING, row.sandboxId());
            }
        }
    }

    private void record(SandboxRecord r, String decision, String reason, long t0) {
        audit.record(r.owner(), r.project(), AUDIT_VERB, decision, reason, r.services(), t0);
    }

    private static Verdict await(Future<Verdict> check, SandboxRecord r) throws InterruptedException {
        try {
            return check.get();
        } catch (ExecutionException e) {
            return new Verdict.Dead("its check failed: " + e.getCause());
        }
    }

    private static Optional<ServiceInstance> awaitPool(Future<Optional<ServiceInstance>> check)
            throws InterruptedException {
        try {
            return check.get();
        } catch (ExecutionException e) {
            return Optional.empty();
        }
    }
}
