package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.template.PhysicalCopy;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.InputStream;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new sandbox started from its template seed's physical copy ({@link PhysicalCopy}) instead of its dump: the container
 * starts {@linkplain PhysicalCopies#held held}, the copy is streamed from the {@link TemplateStore} into its data
 * directory (never held in memory here), and its server then starts on it with the new sandbox's own names and
 * passwords. A copy is used only on the image and major that wrote it; otherwise, and for a template without one, the
 * dump is restored as before, and the reason is logged.
 */
final class PhysicalStart {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);

    /** The copy a plan starts from: the engine's capability, the template and its copy. */
    record Source(PhysicalCopies copies, TemplateInfo template, PhysicalCopy copy) {}

    private final TemplateStore templates;
    private final Containers containers;

    PhysicalStart(TemplateStore templates, Containers containers) {
        this.templates = templates;
        this.containers = containers;
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
        return Optional.of(new Source(copies.get(), template, template.physical()));
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
        try (InputStream archive = templates.openPhysical(t.project(), t.name())) {
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
