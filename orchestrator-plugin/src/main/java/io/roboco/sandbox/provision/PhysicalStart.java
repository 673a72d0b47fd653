package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.runtime.VolumeMount;
import io.roboco.sandbox.template.PhysicalCopy;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new sandbox started from its template seed's physical copy ({@link PhysicalCopy}) instead of its dump: the container
 * starts {@linkplain PhysicalCopies#held held}, the copy is copied into its data directory from the template's unpacked
 * volume mounted read-only ({@link TemplateVolumes}, where the runtime mounts volumes) or else streamed from the
 * {@link TemplateStore} (never held in memory here), and its server then starts on it with the new sandbox's own names and
 * passwords. A copy is used only on the image and major that wrote it; otherwise, and for a template without one, the
 * dump is restored as before, and the reason is logged.
 */
final class PhysicalStart {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);

    /**
     * The copy a plan starts from: the engine's capability, the template and its copy, and the volume it is unpacked in
     * (null: it is streamed in through an exec).
     */
    record Source(PhysicalCopies copies, TemplateInfo template, PhysicalCopy copy, VolumeMount volume) {
        /** The engine's spec held for the copy: copying from the mounted volume itself, or waiting for the stream. */
        ContainerSpec held(ContainerSpec spec) {
            return volume == null ? copies.held(spec) : copies.heldFrom(spec, volume.path());
        }

        /** The volumes the container mounts. */
        List<VolumeMount> volumes() {
            return volume == null ? List.of() : List.of(volume);
        }
    }

    private final TemplateStore templates;
    private final Containers containers;
    private final TemplateVolumes volumes;

    PhysicalStart(TemplateStore templates, Containers containers, TemplateVolumes volumes) {
        this.templates = templates;
        this.containers = containers;
        this.volumes = volumes;
    }

    /** Unpacks {@code template}'s copy into its volume now (after a save), where the runtime mounts volumes. */
    void unpack(TemplateInfo template) {
        if (template.physical() != null) {
            volumes.mount(template);
        }
    }

    /** The physical copy {@code plan}'s seed starts from; empty when it has none, or one that cannot start here. */
    Optional<Source> usable(ServicePlan plan) {
        if (!(plan.seed() instanceof Seed.Template seed)) {
            return Optional.empty();
        }
        Optional<PhysicalCopies> copies = plan.engine().physicalCopies();
        if (copies.isEmpty()) {
            return Optional.empty();
        }
        Optional<TemplateInfo> found = templates.find(seed.project(), seed.name());
        if (found.isEmpty() || found.get().physical() == null) {
            return Optional.empty();
        }
        TemplateInfo template = found.get();
        Optional<String> why = notUsable(template, plan.image());
        if (why.isPresent()) {
            log.info("{}; its dump is restored instead", why.get());
            return Optional.empty();
        }
        return Optional.of(new Source(
                copies.get(),
                template,
                template.physical(),
                volumes.mount(template).orElse(null)));
    }

    /** Why {@code template}'s physical copy cannot start a sandbox on {@code image} (empty: it can). */
    static Optional<String> notUsable(TemplateInfo template, ImageChoice image) {
        PhysicalCopy copy = template.physical();
        if (copy == null) {
            return Optional.of("template '" + template.name() + "' has no physical copy");
        }
        return copy.mismatch(image.image(), image.major())
                .map(m -> "template '" + template.name() + "' of project '" + template.project() + "': " + m);
    }

    /** Writes {@code source}'s copy into the held container {@code started} as {@code target}'s names and passwords. */
    void restore(Source source, ColdStart.Started started, Credentials target) throws Exception {
        TemplateInfo t = source.template();
        // From a mounted volume the container's first process has copied it in already: nothing to stream (null).
        try (InputStream archive = source.volume() != null ? null : templates.openPhysical(t.project(), t.name())) {
            source.copies()
                    .restore(
                            containers.exec(started.container().id()),
                            source.copy().origin(),
                            target,
                            archive,
                            source.copy().sizeBytes());
        }
    }
}
