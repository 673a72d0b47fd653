package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.KnownLengthInput;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import io.roboco.sandbox.runtime.VolumeMount;
import io.roboco.sandbox.template.PhysicalCopy;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Templates' physical copies unpacked once into a named volume of the runtime (where it {@linkplain
 * ContainerRuntime#mountsVolumes() mounts volumes}: Docker), so a new sandbox mounts its template's copy read-only and its
 * first process copies it into the sandbox's own tmpfs data directory at memory speed, instead of the copy being
 * streamed in through an exec. The template store's archive stays the copy's truth; a volume is a cache of it, one per
 * saved copy (its name digests instance, project, template name and the save's instant, so a replaced template gets a
 * new one), labelled {@value #LABEL} with this server's instance, dropped when its template is saved again or deleted
 * (noticed at the next unpack), and all of them when the server starts and closes (one a sandbox still mounts stays
 * until the next start). Any failure to make one falls back to the stream.
 */
final class TemplateVolumes {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);

    /** Label of a volume that holds an unpacked template copy; its value is the server's instance. */
    static final String LABEL = "roboco.sandbox.template-copy";
    /** Where a sandbox sees its template's unpacked copy (read-only). */
    static final String MOUNT = "/roboco-template";

    private static final String FILL = "/roboco-fill";

    private final ContainerRuntime runtime;
    private final TemplateStore templates;
    private final String instanceId;
    private final Limits limits;
    /**
     * project NUL template → the volume of its current copy, once this process has fully unpacked it (only those are
     * mounted; an older one is removed when a newer is made).
     */
    private final Map<String, String> current = new ConcurrentHashMap<>();

    private final ContainerLedger ledger;

    TemplateVolumes(
            ContainerRuntime runtime,
            TemplateStore templates,
            String instanceId,
            Limits limits,
            ContainerLedger ledger) {
        this.ledger = ledger;
        this.runtime = runtime;
        this.templates = templates;
        this.instanceId = instanceId;
        this.limits = limits;
    }

    boolean enabled() {
        return runtime.mountsVolumes();
    }

    /** Removes every volume of this instance (a previous process's cache; this one unpacks its own). */
    void purge() {
        if (!enabled()) {
            return;
        }
        try {
            for (String name : runtime.volumes(Map.of(LABEL, instanceId))) {
                removeQuietly(name);
            }
        } catch (RuntimeException e) {
            log.warn("template copy volumes of instance {} could not be listed: {}", instanceId, e.getMessage());
        }
        current.clear();
    }

    /**
     * The read-only mount of {@code template}'s unpacked copy, unpacked now if this process has not yet; empty when the
     * runtime mounts no volumes or unpacking failed (the caller streams the copy instead; the reason is logged).
     */
    Optional<VolumeMount> mount(TemplateInfo template) {
        PhysicalCopy copy = template.physical();
        if (!enabled() || copy == null) {
            return Optional.empty();
        }
        String name = volumeName(template);
        String key = key(template);
        if (!name.equals(current.get(key))) {
            synchronized (this) {
                if (!name.equals(current.get(key))) {
                    sweepStale();
                    try {
                        unpack(name, template, copy);
                        String before = current.put(key, name);
                        if (before != null && !before.equals(name)) {
                            removeQuietly(before);
                        }
                    } catch (Exception e) {
                        removeQuietly(name);
                        log.warn(
                                "template '{}' of project {}: its physical copy could not be unpacked into a volume ({});"
                                        + " it is streamed into each sandbox instead",
                                template.name(),
                                template.project(),
                                e.getMessage());
                        return Optional.empty();
                    }
                }
            }
        }
        return Optional.of(new VolumeMount(name, MOUNT, true));
    }

    /** Makes the volume and unpacks the store's archive into it in a short-lived helper container of the copy's image. */
    private void unpack(String name, TemplateInfo template, PhysicalCopy copy) throws Exception {
        long t0 = System.nanoTime();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(LABEL, instanceId);
        labels.put(SandboxLabels.PROJECT, template.project());
        removeQuietly(name);
        runtime.createVolume(name, labels);
        Map<String, String> helperLabels = SandboxLabels.forService(
                instanceId, "template-volume", template.project(), "postgres", System.currentTimeMillis() / 1000);
        ContainerSpec spec = new ContainerSpec(
                copy.image(), Map.of(), List.of("bash", "-c", "while :; do sleep 3600; done"), "/tmp/roboco-unused", 1);
        RunRequest request = new RunRequest(
                        "roboco-sbx-tplfill-" + name.substring(name.length() - 12),
                        spec,
                        helperLabels,
                        limits,
                        new NetworkMode.Host(),
                        Set.of("CHOWN", "FOWNER", "DAC_OVERRIDE"))
                .withVolumes(List.of(new VolumeMount(name, FILL, false)));
        StartedContainer helper = runtime.start(request);
        ledger.enter(helper.id(), ContainerLedger.Reason.IN_FLIGHT, "template-volume");
        try (InputStream archive = templates.openPhysical(template.project(), template.name())) {
            ExecResult r = runtime.execAs(
                    helper.id(),
                    null,
                    List.of("tar", "-x", "-f", "-", "-C", FILL),
                    Map.of(),
                    new KnownLengthInput(archive, copy.sizeBytes()),
                    OutputStream.nullOutputStream());
            if (!r.ok()) {
                throw new IllegalStateException(
                        "tar -x exited " + r.exitCode() + ": " + r.stderr().strip());
            }
        } finally {
            try {
                runtime.remove(helper.id());
                ledger.strike(helper.id());
            } catch (RuntimeException e) {
                log.warn("template volume helper {} could not be removed: {}", helper.name(), e.getMessage());
            }
        }
        log.info(
                "template '{}' of project {}: physical copy ({} bytes) unpacked into volume {} in {} ms",
                template.name(),
                template.project(),
                copy.sizeBytes(),
                name,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Drops the volumes of templates deleted or saved again since they were unpacked (under the caller's lock). */
    private void sweepStale() {
        for (Map.Entry<String, String> e : Map.copyOf(current).entrySet()) {
            String[] key = e.getKey().split("\0", 2);
            Optional<TemplateInfo> now = templates.find(key[0], key[1]);
            if (now.isEmpty()
                    || now.get().physical() == null
                    || !volumeName(now.get()).equals(e.getValue())) {
                current.remove(e.getKey());
                removeQuietly(e.getValue());
            }
        }
    }

    private void removeQuietly(String name) {
        try {
            runtime.removeVolume(name);
        } catch (RuntimeException e) {
            log.debug("volume {} not removed: {}", name, e.getMessage());
        }
    }

    private static String key(TemplateInfo t) {
        return t.project() + "\0" + t.name();
    }

    String volumeName(TemplateInfo t) {
        String id = instanceId + "\0" + t.project() + "\0" + t.name() + "\0" + t.created() + "\0"
                + t.physical().sizeBytes();
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
            return "roboco-sbx-tpl-" + HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
