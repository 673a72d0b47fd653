package io.roboco.sandbox.settings;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.template.TemplateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A project's Sandbox settings as sent to {@code PUT /api/projects/{id}}, validated against the
 * registry and the allowlists before anything is saved. Every error is a 400 naming what is allowed.
 */
public final class ProjectForm {
    private static final Set<String> FIELDS = Set.of(
            "name",
            "sandbox_services",
            "sandbox_extensions",
            "sandbox_versions",
            "sandbox_ttl_default",
            "sandbox_ttl_max",
            "sandbox_max_live",
            "sandbox_seed",
            "sandbox_limits");
    private static final Set<String> LIMIT_FIELDS = Set.of("memory", "data_size", "cpus");
    /** Below these a service does not start reliably. */
    static final long MIN_MEMORY = 64L << 20;

    static final long MIN_DATA = 16L << 20;

    private ProjectForm() {}

    /** The outcome of validating a project form: the project to save, or why nothing may be saved. */
    public sealed interface Check {
        record Valid(Project project) implements Check {}

        record Invalid(String message) implements Check {}
    }

    /**
     * The same validation as {@code PUT /api/projects/{id}}, as a value: the dashboard's Sandbox
     * card uses it so the page and the API accept and refuse exactly the same settings.
     */
    public static Check check(String id, Map<String, Object> body, EngineRegistry registry) {
        return check(id, body, registry, null);
    }

    /** {@link #check(String, Map, EngineRegistry)} that also checks the standing extensions against the images of the picked majors. */
    public static Check check(String id, Map<String, Object> body, EngineRegistry registry, ProvisionSettings images) {
        return check(id, body, registry, images, null);
    }

    /** {@link #check(String, Map, EngineRegistry, ProvisionSettings)} with a template seed checked against {@code templates} too. */
    public static Check check(
            String id,
            Map<String, Object> body,
            EngineRegistry registry,
            ProvisionSettings images,
            TemplateStore templates) {
        try {
            return new Check.Valid(parse(id, body, registry, images, templates));
        } catch (BadRequest e) {
            return new Check.Invalid(e.getMessage());
        }
    }

    /** Validates {@code body}; a {@link BadRequest} names the field and what is allowed. */
    public static Project parse(String id, Map<String, Object> body, EngineRegistry registry) {
        return parse(id, body, registry, null);
    }

    /**
     * {@link #parse(String, Map, EngineRegistry)}; with {@code images} (null: skip) a standing extension the image
     * of the project's major lacks is refused too, naming the majors that offer it.
     */
    public static Project parse(
            String id, Map<String, Object> body, EngineRegistry registry, ProvisionSettings images) {
        return parse(id, body, registry, images, null);
    }

    /**
     * {@link #parse(String, Map, EngineRegistry, ProvisionSettings)}; with {@code templates} (null: skip) a template seed
     * must name a saved template (the refusal lists the known ones) that restores into the project's major.
     */
    public static Project parse(
            String id,
            Map<String, Object> body,
            EngineRegistry registry,
            ProvisionSettings images,
            TemplateStore templates) {
        Project project = parseFields(id, body, registry, images);
        if (templates != null) {
            SeedForm.requireTemplates(project, templates, registry, images);
        }
        return project;
    }

    private static Project parseFields(
            String id, Map<String, Object> body, EngineRegistry registry, ProvisionSettings images) {
        ProjectId.parse(id);
        for (String key : body.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key)
                        + "'; a project takes: name, sandbox_services, sandbox_extensions, sandbox_versions, sandbox_ttl_default,"
                        + " sandbox_ttl_max, sandbox_max_live, sandbox_seed, sandbox_limits");
            }
        }
        Object name = body.get("name");
        if (name != null && (!(name instanceof String) || ((String) name).length() > 200)) {
            throw new BadRequest("'name' must be a string of at most 200 characters");
        }
        List<String> services =
                new ArrayList<>(new LinkedHashSet<>(strings("sandbox_services", body.get("sandbox_services"))));
        for (String service : services) {
            try {
                registry.require(service);
            } catch (UnknownNameException e) {
                throw new BadRequest("sandbox_services: " + e.getMessage() + "; nothing saved");
            }
        }
        Map<String, List<String>> extensions = new TreeMap<>();
        Object raw = body.get("sandbox_extensions");
        if (raw != null) {
            if (!(raw instanceof Map)) {
                throw new BadRequest("'sandbox_extensions' must be an object mapping a service to an array of names, "
                        + "e.g. {\"postgres\":[\"pg_trgm\"]}");
            }
            for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
                String service = String.valueOf(e.getKey());
                if (!services.contains(service)) {
                    throw new BadRequest("sandbox_extensions names service '" + Names.printable(service)
                            + "', which is not in sandbox_services " + services + "; nothing saved");
                }
                List<String> features =
                        new ArrayList<>(new LinkedHashSet<>(strings("sandbox_extensions." + service, e.getValue())));
                try {
                    registry.requireFeatures(service, features);
                } catch (UnknownNameException ex) {
                    throw new BadRequest("sandbox_extensions: " + ex.getMessage() + "; nothing saved");
                }
                if (!features.isEmpty()) {
                    extensions.put(service, features);
                }
            }
        }
        Map<String, String> versions = versions(body.get("sandbox_versions"), services, registry);
        if (images != null) {
            requireOffered(extensions, versions, registry, images);
        }
        Duration ttlDefault = ttl("sandbox_ttl_default", body.get("sandbox_ttl_default"));
        Duration ttlMax = ttl("sandbox_ttl_max", body.get("sandbox_ttl_max"));
        if (ttlDefault != null && ttlMax != null && ttlDefault.compareTo(ttlMax) > 0) {
            throw new BadRequest("sandbox_ttl_default (" + DurationText.format(ttlDefault)
                    + ") must not exceed sandbox_ttl_max (" + DurationText.format(ttlMax) + "); nothing saved");
        }
        Integer maxLive = maxLive(body.get("sandbox_max_live"));
        Map<String, ServiceLimits> limits = limits(
                body.get("sandbox_limits"),
                services,
                images == null ? Limits.sandboxDefaults() : images.limits(),
                images == null ? Limits.operatorMaximums() : images.maxLimits());
        return new Project(
                id,
                (String) name,
                services,
                extensions,
                versions,
                ttlDefault,
                ttlMax,
                maxLive,
                SeedForm.parseAll(body.get("sandbox_seed"), services, registry),
                limits);
    }

    /** A TTL field: absent, null or "" for the server's; else a duration such as 30m or 4h. */
    private static Duration ttl(String field, Object raw) {
        if (raw == null || (raw instanceof String s && s.isBlank())) {
            return null;
        }
        return DurationText.require(field, raw);
    }

    private static Integer maxLive(Object raw) {
        if (raw == null || (raw instanceof String s && s.isBlank())) {
            return null;
        }
        if (raw instanceof String s && s.trim().matches("[0-9]{1,6}")) {
            raw = Integer.parseInt(s.trim());
        }
        if (!(raw instanceof Number n)
                || n.doubleValue() != Math.rint(n.doubleValue())
                || n.longValue() < 1
                || n.longValue() > 100_000) {
            throw new BadRequest(
                    "'sandbox_max_live' must be a whole number from 1 to 100000 (or null for no project limit)");
        }
        return n.intValue();
    }

    /**
     * {@code sandbox_limits}: service → {@code {"memory": "1g", "data_size": "512m", "cpus": 2}}, each field optional
     * (the server's default where absent), each service opted in, each value within the operator's maximum (a refusal
     * names it and its setting), and the data tmpfs below the memory it counts against.
     */
    private static Map<String, ServiceLimits> limits(
            Object raw, List<String> services, Limits defaults, Limits maximums) {
        Map<String, ServiceLimits> limits = new TreeMap<>();
        if (raw == null) {
            return limits;
        }
        if (!(raw instanceof Map)) {
            throw new BadRequest("'sandbox_limits' must be an object mapping a service to its limits, "
                    + "e.g. {\"postgres\":{\"memory\":\"1g\",\"data_size\":\"512m\",\"cpus\":2}}");
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
            String service = String.valueOf(e.getKey());
            String at = "sandbox_limits." + Names.printable(service);
            if (!services.contains(service)) {
                throw new BadRequest("sandbox_limits names service '" + Names.printable(service)
                        + "', which is not in sandbox_services " + services + "; nothing saved");
            }
            if (!(e.getValue() instanceof Map<?, ?> fields)) {
                throw new BadRequest("'" + at + "' must be an object with memory, data_size and/or cpus");
            }
            for (Object key : fields.keySet()) {
                if (!LIMIT_FIELDS.contains(String.valueOf(key))) {
                    throw new BadRequest("unknown field '" + at + "." + Names.printable(String.valueOf(key))
                            + "'; a service's limits take: memory, data_size, cpus");
                }
            }
            long memory = size(
                    at + ".memory",
                    fields.get("memory"),
                    MIN_MEMORY,
                    maximums.memoryBytes(),
                    "ROBOCO_SANDBOX_MAX_MEMORY");
            long data = size(
                    at + ".data_size",
                    fields.get("data_size"),
                    MIN_DATA,
                    maximums.tmpfsBytes(),
                    "ROBOCO_SANDBOX_MAX_DATA_SIZE");
            long cpus = cpus(at + ".cpus", fields.get("cpus"), maximums.nanoCpus());
            ServiceLimits set = new ServiceLimits(memory, data, cpus);
            Limits effective = set.over(defaults);
            if (effective.tmpfsBytes() >= effective.memoryBytes()) {
                throw new BadRequest(
                        at + ": data_size " + ByteSize.format(effective.tmpfsBytes()) + " must be below memory "
                                + ByteSize.format(effective.memoryBytes())
                                + " (the data tmpfs counts against the memory limit); "
                                + "raise memory too; nothing saved");
            }
            if (!set.isDefault()) {
                limits.put(service, set);
            }
        }
        return limits;
    }

    private static long size(String field, Object raw, long min, long max, String setting) {
        if (raw == null) {
            return 0;
        }
        long bytes;
        try {
            bytes = raw instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                    ? n.longValue()
                    : ByteSize.parse(String.valueOf(raw));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("'" + field + "': " + e.getMessage());
        }
        if (bytes > max) {
            throw new BadRequest("'" + field + "' " + ByteSize.format(bytes) + " is over the operator's maximum "
                    + ByteSize.format(max) + " (" + setting + "); nothing saved");
        }
        if (bytes < min) {
            throw new BadRequest("'" + field + "' " + ByteSize.format(bytes) + " is below the minimum "
                    + ByteSize.format(min) + "; nothing saved");
        }
        return bytes;
    }

    private static long cpus(String field, Object raw, long maxNanos) {
        if (raw == null) {
            return 0;
        }
        double cpus;
        try {
            cpus = raw instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(raw));
        } catch (NumberFormatException e) {
            throw new BadRequest("'" + field + "' must be a number of CPUs, e.g. 0.5 or 2");
        }
        long nanos = Math.round(cpus * 1e9);
        if (!(cpus > 0) || nanos < 10_000_000L) {
            throw new BadRequest("'" + field + "' must be at least 0.01 CPUs");
        }
        if (nanos > maxNanos) {
            throw new BadRequest("'" + field + "' " + ByteSize.formatCpus(nanos) + " is over the operator's maximum "
                    + ByteSize.formatCpus(maxNanos) + " CPUs (ROBOCO_SANDBOX_MAX_CPUS); nothing saved");
        }
        return nanos;
    }

    /** {@code sandbox_versions}: service → major, each service opted in, each major one its engine knows. */
    private static Map<String, String> versions(Object raw, List<String> services, EngineRegistry registry) {
        Map<String, String> versions = new TreeMap<>();
        if (raw == null) {
            return versions;
        }
        if (!(raw instanceof Map)) {
            throw new BadRequest(
                    "'sandbox_versions' must be an object mapping a service to a major, e.g. {\"postgres\":\"17\"}");
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
            String service = String.valueOf(e.getKey());
            if (!services.contains(service)) {
                throw new BadRequest("sandbox_versions names service '" + Names.printable(service)
                        + "', which is not in sandbox_services " + services + "; nothing saved");
            }
            Object major = e.getValue();
            if (major instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
                major = Long.toString(n.longValue());
            }
            if (major == null || (major instanceof String blank && blank.isEmpty())) {
                continue; // the server's configured image
            }
            Engine engine = registry.require(service);
            if (!(major instanceof String) || !engine.majors().contains(major)) {
                throw new BadRequest("sandbox_versions." + service + ": " + service + " has no major '"
                        + Names.printable(String.valueOf(major))
                        + "'; known: "
                        + (engine.majors().isEmpty()
                                ? "none (the server's configured image is the only one)"
                                : String.join(", ", engine.majors()))
                        + "; nothing saved");
            }
            versions.put(service, (String) major);
        }
        return versions;
    }

    private static void requireOffered(
            Map<String, List<String>> extensions,
            Map<String, String> versions,
            EngineRegistry registry,
            ProvisionSettings images) {
        for (Map.Entry<String, List<String>> e : extensions.entrySet()) {
            Engine engine = registry.require(e.getKey());
            ImageChoice choice = images.choose(engine, versions.get(e.getKey()));
            for (String feature : e.getValue()) {
                if (!choice.features().contains(feature)) {
                    List<String> offering = images.majorsOffering(engine, feature);
                    throw new BadRequest(
                            "sandbox_extensions: " + e.getKey() + " extension '" + feature + "' is not available in "
                                    + choice.describe()
                                    + (offering.isEmpty()
                                            ? "; no configured major offers it"
                                            : "; offered by " + e.getKey() + " " + String.join(", ", offering)
                                                    + " (set sandbox_versions)")
                                    + "; nothing saved");
                }
            }
        }
    }

    public static Map<String, Object> toJson(Project project) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", project.id());
        out.put("name", project.name());
        out.put("sandbox_services", project.services());
        out.put("sandbox_extensions", new TreeMap<>(project.extensions()));
        out.put("sandbox_versions", new TreeMap<>(project.versions()));
        out.put("sandbox_ttl_default", project.ttlDefault() == null ? null : DurationText.format(project.ttlDefault()));
        out.put("sandbox_ttl_max", project.ttlMax() == null ? null : DurationText.format(project.ttlMax()));
        out.put("sandbox_max_live", project.maxLive());
        out.put("sandbox_seed", SeedForm.toJson(project.seeds()));
        Map<String, Object> limits = new TreeMap<>();
        project.limits().forEach((service, l) -> limits.put(service, limitsJson(l)));
        out.put("sandbox_limits", limits);
        return out;
    }

    /** A service's limits as the API takes them: only the fields set. */
    public static Map<String, Object> limitsJson(ServiceLimits l) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (l.memoryBytes() > 0) {
            out.put("memory", ByteSize.format(l.memoryBytes()));
        }
        if (l.dataBytes() > 0) {
            out.put("data_size", ByteSize.format(l.dataBytes()));
        }
        if (l.nanoCpus() > 0) {
            out.put(
                    "cpus",
                    l.nanoCpus() % 1_000_000_000L == 0
                            ? (Object) (l.nanoCpus() / 1_000_000_000L)
                            : (Object) (l.nanoCpus() / 1e9));
        }
        return out;
    }

    private static List<String> strings(String field, Object raw) {
        if (raw == null) {
            return List.of();
        }
        if (!(raw instanceof List)) {
            throw new BadRequest("'" + field + "' must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (Object item : (List<?>) raw) {
            if (!(item instanceof String)) {
                throw new BadRequest("'" + field + "' must be an array of strings");
            }
            out.add((String) item);
        }
        return out;
    }
}
