package io.roboco.sandbox.readopt;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.pool.PoolJournal;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SettingsStore;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-adoption put to work at start (the server's {@code ROBOCO_SANDBOX_READOPT}, the builder's
 * {@code readoption(keyFile)}). With re-adoption on: the key file is read (or generated), every
 * handed-out sandbox's credentials are sealed under it, the warm pool journals its idle containers, a graceful shutdown
 * keeps the agents' sandboxes (and removes the idle pool: nothing idle outlives a stop), and {@link #readopt} takes back
 * what a previous process left (after a crash, its idle pool too). With it off (or without a usable key):
 * the seed's behaviour, as the lifecycle's records have it (verb sets of a previous process ended, their containers the
 * janitor's; a shutdown releases everything) and nothing sealed.
 */
public final class Restarts {
    private static final Logger log = LoggerFactory.getLogger(Restarts.class);

    private final boolean readopt;
    private final KeyStatus key;
    private final CredentialVault vault;
    private final SettingsStore store;
    private final SandboxBook book;

    private Restarts(boolean readopt, KeyStatus key, CredentialVault vault, SettingsStore store, SandboxBook book) {
        this.readopt = readopt;
        this.key = key;
        this.vault = vault;
        this.store = store;
        this.book = book;
    }

    /** With {@code keyFile} null re-adoption is off; otherwise the key is read from it (or generated into it). */
    public static Restarts prepare(Path keyFile, SettingsStore store, String instance, SandboxBook book) {
        if (keyFile == null) {
            int ended = book.reconcileAtStart();
            int poolRows = 0;
            for (SealedContainer row : store.sealedOf(instance)) {
                if (row.pooled() && store.deleteSealed(row.sandboxId(), row.containerId())) {
                    poolRows++;
                }
            }
            log.info(
                    "re-adoption is off (ROBOCO_SANDBOX_READOPT=false): {} sandbox(es) a previous process handed out are forgotten"
                            + "{}; the janitor removes their containers past the grace window, and a shutdown releases every sandbox",
                    ended,
                    poolRows == 0 ? "" : " (and " + poolRows + " idle pool container(s))");
            return new Restarts(false, null, null, store, book);
        }
        VaultKey.Opened opened = VaultKey.open(keyFile);
        if (opened.cipher() == null) {
            // Loud, not fatal: Readoption closes what cannot be opened and says so, naming the file.
            return new Restarts(true, opened.status(), null, store, book);
        }
        CredentialVault vault = new CredentialVault(store, opened.cipher(), instance);
        log.info(
                "re-adoption is on: sandbox credentials are sealed (AES-256-GCM) under key {} from {}{}",
                opened.cipher().keyId(),
                keyFile,
                opened.status().generated() ? " (generated now, mode 0600; keep it with the state directory)" : "");
        return new Restarts(true, opened.status(), vault, store, book);
    }

    /** A graceful shutdown keeps sandboxes for re-adoption (re-adoption on, and a usable key). */
    public boolean keeping() {
        return vault != null;
    }

    public CredentialVault vault() {
        return vault;
    }

    /** Where the warm pool journals its idle containers: sealed in the store when {@link #keeping()}, else nowhere. */
    public PoolJournal poolJournal() {
        return vault != null ? new SealedPool(vault) : PoolJournal.NONE;
    }

    /** Re-adopts (or closes) what a previous process of this instance left; nothing with re-adoption off. */
    public void readopt(
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            SandboxManager manager,
            WarmPool pool,
            Clock clock,
            AuditTrail audit) {
        if (!readopt) {
            return;
        }
        try {
            ReadoptionReport report =
                    new Readoption(store, vault, key, registry, provisioner, manager, book, pool, clock, audit).run();
            if (!keeping()) {
                log.warn(
                        "re-adoption: no usable key, so this run seals nothing and a shutdown releases every sandbox; fix {} (see"
                                + " docs/operations.md, 'The key file')",
                        key.file());
            }
            if (report.readopted() > 0) {
                log.info(
                        "re-adopted {} sandbox(es): each answers its owner with the same credentials as before",
                        report.readopted());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
