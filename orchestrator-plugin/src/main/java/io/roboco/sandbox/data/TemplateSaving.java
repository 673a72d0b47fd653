package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Dumps;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.SchemaObject;
import io.roboco.sandbox.engine.SchemaSnapshots;
import io.roboco.sandbox.engine.SeedException;
import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.PhysicalCopy;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.sql.SQLException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves one of our own sandboxes' database as a named template, from the service whose engine offers {@link Dumps}
 * ({@link Engine#dumps}; Postgres): its schema digest read first (on the agent's credential, {@link Engine#schemaSnapshots}),
 * then the engine's dump inside its container streamed into the {@link TemplateStore}. Runs under the owner's lock, so it
 * never overlaps the owner's request_sandbox or release. Only a sandbox this process holds can be saved: the owner key
 * must name a live set with such a service in it.
 */
public final class TemplateSaving {
    public static final String SAVE_TEMPLATE = Verbs.SAVE_TEMPLATE;
    private static final Logger log = LoggerFactory.getLogger(TemplateSaving.class);

    private final SandboxManager manager;
    private final Clock clock;

    public TemplateSaving(SandboxManager manager, Clock clock) {
        this.manager = manager;
        this.clock = clock;
    }

    /** Saves the database of the set keyed {@code owner} (of {@code project}) as {@code name}. */
    public DataOutcome save(String owner, String project, String name, boolean replace) throws InterruptedException {
        if (!TemplateName.isValid(name)) {
            return new DataOutcome.Refused(TemplateName.SHAPE.malformed(name));
        }
        TemplateStore store = manager.provisioner().templates();
        AtomicReference<Saved> saved = new AtomicReference<>();
        try {
            return withPhysicalCopy(saved, manager.withAgent(owner, found -> {
                Optional<Offered<Dumps>> offered = found.flatMap(s -> dumps(s.services()));
                if (offered.isEmpty()) {
                    return new DataOutcome.Refused(
                            found.isEmpty()
                                    ? "no live sandbox of '" + owner
                                            + "' on this server; only our own sandboxes can become templates"
                                    : noService());
                }
                if (!replace && store.find(project, name).isPresent()) {
                    return new DataOutcome.Refused(new TemplateStore.NameTaken(project, name).getMessage());
                }
                return save(store, found.get().id(), offered.get(), project, name, replace, saved);
            }));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return failure(e, manager.find(owner).flatMap(s -> dumps(s.services())));
        }
    }

    /**
     * Saves the database of named sandbox {@code id} (of {@code project}), whose services {@code held} answers
     * while it is live and this process holds its credentials; under the lock its data operations and deletion share.
     */
    public DataOutcome saveNamed(
            String id,
            String project,
            String name,
            boolean replace,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        return saveHeld(SandboxData.lockKey(id), id, "named", project, name, replace, held);
    }

    /**
     * Saves the database of sandbox {@code record}, whatever its kind, under its lock ({@link SandboxManager#lockKey}),
     * from the services {@code held} answers while it is live and this process holds its credentials.
     */
    public DataOutcome saveOn(
            SandboxRecord record,
            String name,
            boolean replace,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        return saveHeld(
                SandboxManager.lockKey(record),
                record.id(),
                record.kind().wire(),
                record.project(),
                name,
                replace,
                held);
    }

    private DataOutcome saveHeld(
            String lock,
            String id,
            String kind,
            String project,
            String name,
            boolean replace,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        if (!TemplateName.isValid(name)) {
            return new DataOutcome.Refused(TemplateName.SHAPE.malformed(name));
        }
        TemplateStore store = manager.provisioner().templates();
        AtomicReference<Saved> saved = new AtomicReference<>();
        try {
            return withPhysicalCopy(saved, manager.withAgent(lock, ignored -> {
                Optional<Offered<Dumps>> offered = held.apply(id).flatMap(this::dumps);
                if (offered.isEmpty()) {
                    return new DataOutcome.Refused(
                            held.apply(id).isEmpty()
                                    ? "this server does not hold the credentials of " + kind + " sandbox " + id
                                            + " (no longer live, or made before a"
                                            + " restart that did not re-adopt it); only our own live sandboxes can become templates"
                                    : noService());
                }
                if (!replace && store.find(project, name).isPresent()) {
                    return new DataOutcome.Refused(new TemplateStore.NameTaken(project, name).getMessage());
                }
                return save(store, id, offered.get(), project, name, replace, saved);
            }));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            return failure(e, dumps(held.apply(id).orElse(Map.of())));
        }
    }

    /** The sandbox's service whose engine can dump its database (Postgres). */
    private Optional<Offered<Dumps>> dumps(Map<String, ServiceInstance> services) {
        return Offered.in(registry(), services, Engine::dumps);
    }

    private String noService() {
        return "the sandbox has no " + registry().namesOffering(Engine::dumps) + " service; a template is a "
                + Offered.engines(registry(), Engine::dumps) + " dump";
    }

    private EngineRegistry registry() {
        return manager.registry();
    }

    private DataOutcome failure(Exception e, Optional<Offered<Dumps>> dumps) {
        if (e instanceof TemplateStore.NameTaken
                || e instanceof TemplateStore.OverCap
                || e instanceof UnsupportedOperationException) {
            return new DataOutcome.Refused(e.getMessage());
        }
        String message =
                dumps.map(d -> d.redact(String.valueOf(e.getMessage()))).orElse(String.valueOf(e.getMessage()));
        if (e instanceof SQLException || e instanceof SeedException) {
            return new DataOutcome.Failed(
                    SAVE_TEMPLATE + " failed: " + message + "; no template was saved, try again", true);
        }
        return new DataOutcome.Failed(
                SAVE_TEMPLATE + " failed: " + e.getClass().getSimpleName() + ": " + message + "; no template was saved",
                true);
    }

    private DataOutcome save(
            TemplateStore store,
            String sandboxId,
            Offered<Dumps> dumps,
            String project,
            String name,
            boolean replace,
            AtomicReference<Saved> made)
            throws Exception {
        ServiceInstance service = dumps.instance();
        ProbeTarget target = dumps.target();
        SchemaDigest digest = describe(service, target);
        List<String> extensions = digest.objects().values().stream()
                .filter(o -> o.kind().equals("extension"))
                .map(SchemaObject::name)
                .filter(e -> !e.equals("plpgsql"))
                .sorted()
                .toList();
        String major = service.major().isEmpty() ? majorOf(digest.postgresVersion()) : service.major();
        TemplateInfo info = new TemplateInfo(
                name,
                project,
                sandboxId,
                major,
                digest.postgresVersion(),
                0,
                clock.instant(),
                digest.digest(),
                extensions);
        TemplateInfo saved = store.save(
                info, out -> dumps.feature().dump(manager.provisioner().execIn(service), target, out), replace);
        made.set(new Saved(service, saved));
        Map<String, Object> evidence = new LinkedHashMap<>(DirectoryTemplateStore.toJson(saved));
        evidence.put(
                "templates",
                store.list(project).stream()
                        .map(t -> {
                            Map<String, Object> brief = new LinkedHashMap<>();
                            brief.put("name", t.name());
                            brief.put("major", t.major());
                            brief.put("size_bytes", t.sizeBytes());
                            brief.put("created", t.created().toString());
                            return brief;
                        })
                        .toList());
        evidence.put(
                "note",
                "a template is a dump of the database as it was now (schema and rows, no owners or grants); a new"
                        + " sandbox from it (request_sandbox(template=\"" + name
                        + "\")) gets it as its own, on PostgreSQL " + major + " or newer");
        return new DataOutcome.Done(evidence);
    }

    /** The template just saved (its dump) and the service it was dumped from. */
    private record Saved(ServiceInstance service, TemplateInfo template) {}

    /**
     * After the dump is saved, and outside the owner's lock (the source sandbox is not needed any more): the template's
     * physical copy, when the store keeps them and the service's engine makes them ({@link Engine#physicalCopies}),
     * made in a throwaway container of the source's image from the dump just saved
     * ({@link io.roboco.sandbox.provision.ServiceProvisioner#capturePhysical}). A copy that cannot be made leaves the
     * template as its dump, and the answer says why.
     */
    private DataOutcome withPhysicalCopy(AtomicReference<Saved> made, DataOutcome outcome) throws InterruptedException {
        Saved saved = made.get();
        if (!(outcome instanceof DataOutcome.Done done) || saved == null) {
            return outcome;
        }
        TemplateStore store = manager.provisioner().templates();
        Engine engine = registry().require(saved.service().service());
        TemplateInfo t = saved.template();
        if (!store.keepsPhysicalCopyOf(t) || engine.physicalCopies().isEmpty()) {
            return outcome;
        }
        ServiceInstance source = saved.service();
        Set<AllowedFeature> features = new TreeSet<>();
        t.extensions().forEach(e -> Features.allow(engine, e).ifPresent(features::add));
        Seed.Template seed = new Seed.Template(t.name()).resolved(t.project(), t.created() + " " + t.schemaDigest());
        Map<String, Object> evidence = new LinkedHashMap<>(done.evidence());
        long t0 = System.nanoTime();
        try {
            TemplateInfo withCopy = store.savePhysical(
                    t.project(),
                    t.name(),
                    t.created(),
                    out -> PhysicalCopy.of(
                            source.image(),
                            manager.provisioner().capturePhysical(engine, source, seed, features, t.project(), out),
                            0));
            PhysicalCopy copy = withCopy.physical();
            manager.provisioner().unpackPhysical(withCopy);
            Map<String, Object> brief = new LinkedHashMap<>();
            brief.put("image", copy.image());
            brief.put("major", copy.major());
            brief.put("size_bytes", copy.sizeBytes());
            evidence.put("physical_copy", brief);
            evidence.put(
                    "note",
                    "a template is a dump of the database as it was now (schema and rows, no owners or grants), and a"
                            + " copy of it as a stopped server's data directory; a new sandbox from it"
                            + " (request_sandbox(template=\"" + t.name() + "\")) gets it as its own: by copying the"
                            + " directory on image " + copy.image() + ", by restoring the dump on PostgreSQL "
                            + t.major() + " or newer");
            log.info(
                    "template '{}' of project {}: physical copy of {} bytes made in {} ms",
                    t.name(),
                    t.project(),
                    copy.sizeBytes(),
                    (System.nanoTime() - t0) / 1_000_000);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                throw (InterruptedException) e;
            }
            String why = Offered.redact(String.valueOf(e.getMessage()), source);
            log.warn(
                    "template '{}' of project {}: no physical copy ({}); it is kept as its dump",
                    t.name(),
                    t.project(),
                    why);
            evidence.put("physical_copy", "not made (" + why + "); new sandboxes from it restore its dump");
        }
        return new DataOutcome.Done(evidence);
    }

    /**
     * What the template records of the schema (its digest, extensions, server version): the engine's schema snapshot, or
     * an empty digest when its engine takes none.
     */
    private SchemaDigest describe(ServiceInstance service, ProbeTarget target) throws Exception {
        Optional<SchemaSnapshots> schemas =
                registry().require(service.service()).schemaSnapshots();
        return schemas.isPresent() ? schemas.get().snapshot(target) : SchemaDigest.of("", List.of(), List.of());
    }

    /** {@code 15} of {@code 15.14 (Debian 15.14-0+deb12u1)}. */
    static String majorOf(String version) {
        String digits = String.valueOf(version).strip().split("[^0-9]", 2)[0];
        return digits;
    }
}
