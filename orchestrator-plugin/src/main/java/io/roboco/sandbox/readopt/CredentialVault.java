package io.roboco.sandbox.readopt;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.RowBinding;
import io.roboco.sandbox.secrets.UnsealException;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SealedCredentialStore;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's sandbox credentials at rest: each container's credentials sealed ({@link CredentialCipher}, bound to
 * its sandbox id, owner and container id) into one store row with what re-adoption needs to find and check it. A row
 * is written once per container and again only when its features change. A store that refuses a write never fails the
 * call that asked (the sandbox works; it just cannot be re-adopted after a restart, and the log says so).
 */
public final class CredentialVault {
    private static final Logger log = LoggerFactory.getLogger(CredentialVault.class);

    private final SealedCredentialStore store;
    private final CredentialCipher cipher;
    private final String instance;
    /** Per container id, the features its row was last written with. */
    private final Map<String, Set<String>> written = new ConcurrentHashMap<>();

    public CredentialVault(SealedCredentialStore store, CredentialCipher cipher, String instance) {
        this.store = store;
        this.cipher = cipher;
        this.instance = instance;
    }

    public String instance() {
        return instance;
    }

    public CredentialCipher cipher() {
        return cipher;
    }

    /** Seals every container of a sandbox whose row is missing or has other features. */
    public void sealSet(String sandboxId, String owner, Collection<ServiceInstance> instances) {
        if (sandboxId == null || sandboxId.isEmpty()) {
            return;
        }
        for (ServiceInstance i : instances) {
            if (!i.features().equals(written.get(i.containerId()))) {
                save(row(sandboxId, owner, i));
            }
        }
    }

    /** Seals an idle warm-pool container (its admin credential only) under {@link SealedContainer#POOL}. */
    public void sealPooled(String poolKey, ServiceInstance pooled) {
        save(row(SealedContainer.POOL, poolKey, pooled));
    }

    /** The pool container left the pool (claimed: its agent's row follows; or removed). */
    public void forgetPooled(String containerId) {
        forget(SealedContainer.POOL, containerId);
    }

    /** One container's row goes (the store drops a closed sandbox's rows itself). */
    public void forget(String sandboxId, String containerId) {
        written.remove(containerId);
        try {
            store.deleteSealed(sandboxId, containerId);
        } catch (RuntimeException e) {
            log.warn(
                    "could not delete the sealed credential of container {} ({}); a restart treats it as dead",
                    containerId,
                    e.getMessage());
        }
    }

    /** The sandbox is closed: nothing of it is remembered here (its rows went with its record). */
    public void forgetSet(Collection<String> containerIds) {
        containerIds.forEach(written::remove);
    }

    /** The container as it was sealed, its credentials opened; fails when the row does not open (wrong key, altered, moved). */
    public ServiceInstance open(SealedContainer row) throws UnsealException {
        Credentials credentials = cipher.open(row.sealed(), binding(row.sandboxId(), row.owner(), row.containerId()));
        ServiceInstance instance = new ServiceInstance(
                row.service(),
                row.image(),
                row.containerId(),
                row.containerName(),
                new Endpoint(row.host(), row.port()),
                credentials,
                Set.copyOf(row.features()),
                row.created(),
                row.major(),
                row.limits(),
                row.fromPool());
        written.put(row.containerId(), instance.features());
        return instance;
    }

    /** The rows of this instance (a store fault is the caller's). */
    public List<SealedContainer> rows() {
        return store.sealedOf(instance);
    }

    static RowBinding binding(String sandboxId, String owner, String containerId) {
        return new RowBinding(sandboxId, owner, containerId);
    }

    private SealedContainer row(String sandboxId, String owner, ServiceInstance i) {
        String sealed = cipher.seal(i.credentials(), binding(sandboxId, owner, i.containerId()));
        return new SealedContainer(
                sandboxId,
                i.containerId(),
                owner,
                instance,
                i.service(),
                i.containerName(),
                i.image(),
                i.major(),
                i.endpoint().host(),
                i.endpoint().port(),
                List.copyOf(new TreeSet<>(i.features())),
                i.limits(),
                i.fromPool(),
                i.created(),
                sealed);
    }

    private void save(SealedContainer row) {
        try {
            store.saveSealed(row);
            written.put(row.containerId(), Set.copyOf(row.features()));
        } catch (RuntimeException e) {
            log.warn(
                    "could not store the sealed credential of {} container {} of {} ({}); it cannot be re-adopted after a restart",
                    row.service(),
                    row.containerName(),
                    row.owner(),
                    e.getMessage());
        }
    }
}
