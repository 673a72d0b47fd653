package io.roboco.sandbox.template;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.TemplateName;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Templates as files, one directory per project: {@code <project>/<name>.sql} (the plain-SQL dump),
 * {@code <project>/<name>.json} (its {@link TemplateInfo}) and, when physical copies are kept, {@code
 * <project>/<name>.datadir.tar} (its {@link PhysicalCopy}: a stopped server's data directory), counted in the project's
 * caps with the dump. A template exists once its metadata file does; both are
 * written to a temporary file first and moved into place, so a failed, interrupted or over-cap save leaves no template
 * and a reader never sees half a file. Saves into one project are serialized (its caps are checked and spent under
 * that project's lock); different projects never wait on each other.
 *
 * <p>Templates of an earlier layout (every project's in one directory) are moved into their project's directory when
 * the store opens.
 */
public final class DirectoryTemplateStore implements TemplateStore {
    private static final Logger log = LoggerFactory.getLogger(DirectoryTemplateStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The physical copy's file ending. */
    private static final String ARCHIVE = ".datadir.tar";
    /**
     * The smallest dump that gets a physical copy by default, 4 MB: measured here, a sandbox from a copy pays a fixed
     * ≈ 0.5-1 s (a held start, the empty cluster's ≈ 35 MB copied in, a single-user session), which a dump of a few MB
     * costs in statements.
     */
    public static final long DEFAULT_PHYSICAL_MIN_DUMP = 4L << 20;

    private final Path dir;
    private final TemplateLimits limits;
    private final boolean physicalCopies;
    private final long physicalMinDump;
    private final Map<String, Object> projectLocks = new ConcurrentHashMap<>();

    public DirectoryTemplateStore(Path dir) {
        this(dir, TemplateLimits.defaults());
    }

    public DirectoryTemplateStore(Path dir, TemplateLimits limits) {
        this(dir, limits, true, DEFAULT_PHYSICAL_MIN_DUMP);
    }

    /** With physical copies kept ({@code physicalCopies}) for dumps of {@value #DEFAULT_PHYSICAL_MIN_DUMP} bytes or more. */
    public DirectoryTemplateStore(Path dir, TemplateLimits limits, boolean physicalCopies) {
        this(dir, limits, physicalCopies, DEFAULT_PHYSICAL_MIN_DUMP);
    }

    /**
     * @param physicalCopies  whether saves keep a physical copy beside the dump ({@code ROBOCO_SANDBOX_TEMPLATE_PHYSICAL})
     * @param physicalMinDump the smallest dump, in bytes, that gets one ({@code ROBOCO_SANDBOX_TEMPLATE_PHYSICAL_MIN_DUMP}):
     *                        below it replaying the dump is quicker than copying a whole data directory
     */
    public DirectoryTemplateStore(Path dir, TemplateLimits limits, boolean physicalCopies, long physicalMinDump) {
        if (physicalMinDump < 0) {
            throw new IllegalArgumentException("the smallest dump with a physical copy cannot be negative");
        }
        this.dir = dir;
        this.limits = limits;
        this.physicalCopies = physicalCopies;
        this.physicalMinDump = physicalMinDump;
        moveFlatLayout();
    }

    @Override
    public boolean keepsPhysicalCopies() {
        return physicalCopies;
    }

    @Override
    public boolean keepsPhysicalCopyOf(TemplateInfo saved) {
        return physicalCopies && saved.sizeBytes() >= physicalMinDump;
    }

    public Path directory() {
        return dir;
    }

    @Override
    public TemplateLimits limits() {
        return limits;
    }

    @Override
    public List<TemplateInfo> list(String project) {
        List<TemplateInfo> out = new ArrayList<>();
        if (!validProject(project) || !Files.isDirectory(projectDir(project))) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(projectDir(project), "*.json")) {
            for (Path file : files) {
                String name = file.getFileName().toString().replaceFirst("\\.json$", "");
                if (TemplateName.isValid(name)) {
                    read(project, name).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            log.warn("could not list the templates of project {} in {}: {}", project, dir, e.getMessage());
        }
        out.sort(Comparator.comparing(TemplateInfo::name));
        return out;
    }

    @Override
    public List<TemplateInfo> listAll() {
        List<TemplateInfo> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> projects = Files.newDirectoryStream(dir, Files::isDirectory)) {
            List<String> names = new ArrayList<>();
            projects.forEach(p -> names.add(p.getFileName().toString()));
            names.stream().filter(DirectoryTemplateStore::validProject).sorted().forEach(p -> out.addAll(list(p)));
        } catch (IOException e) {
            log.warn("could not list templates in {}: {}", dir, e.getMessage());
        }
        return out;
    }

    @Override
    public Optional<TemplateInfo> find(String project, String name) {
        return validProject(project) && TemplateName.isValid(name) ? read(project, name) : Optional.empty();
    }

    @Override
    public TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) throws Exception {
        String project = requireProject(info.project());
        String name = require(info.name());
        synchronized (lockOf(project)) {
            long budget = budget(project, name, replace);
            return write(info, budget, dump);
        }
    }

    @Override
    public TemplateInfo copy(String from, String name, String to, String as, boolean replace) throws Exception {
        requireProject(from);
        require(name);
        String target = requireProject(to);
        String newName = require(as == null ? name : as);
        TemplateInfo source = find(from, name)
                .orElseThrow(() -> new FileNotFoundException(
                        "project '" + from + "' has no template '" + name + "'; its templates: " + knownNames(from)));
        TemplateInfo copied = new TemplateInfo(
                newName,
                target,
                source.sandbox(),
                source.major(),
                source.postgresVersion(),
                0,
                source.created(),
                source.schemaDigest(),
                source.extensions());
        synchronized (lockOf(target)) {
            long budget = budget(target, newName, replace);
            TemplateInfo written = write(copied, budget, out -> {
                try (InputStream in = open(from, name)) {
                    in.transferTo(out);
                }
            });
            if (source.physical() == null) {
                return written;
            }
            try {
                Staged staged = stage(target, newName, out -> {
                    try (InputStream in = openPhysical(from, name)) {
                        in.transferTo(out);
                    }
                    return source.physical();
                });
                return install(written, staged);
            } catch (IOException | OverCap e) {
                log.info(
                        "template '{}' copied into project {} as '{}' without its physical copy ({}): its sandboxes restore"
                                + " its dump",
                        name,
                        target,
                        newName,
                        e.getMessage());
                return written;
            }
        }
    }

    /**
     * Writes the archive first, outside the project's lock (making a copy can take a while: other saves of the project
     * do not wait for it), capped at the per-template size; then, under the lock, checks that the template is still the
     * save made at {@code created} and that the project's caps hold it, and puts it in place.
     */
    @Override
    public TemplateInfo savePhysical(String project, String name, Instant created, PhysicalArchive archive)
            throws Exception {
        requireProject(project);
        require(name);
        Staged staged = stage(project, name, archive);
        try {
            synchronized (lockOf(project)) {
                TemplateInfo saved = find(project, name)
                        .filter(t -> t.created().equals(created))
                        .orElseThrow(() -> new FileNotFoundException("template '" + name + "' of project '" + project
                                + "' was deleted or replaced while its physical copy was made; the copy was not kept"));
                return install(saved, staged);
            }
        } finally {
            Files.deleteIfExists(staged.part());
        }
    }

    @Override
    public InputStream openPhysical(String project, String name) throws IOException {
        TemplateInfo info = find(project, name)
                .orElseThrow(
                        () -> new FileNotFoundException("no template '" + name + "' in project '" + project + "'"));
        if (info.physical() == null) {
            throw new FileNotFoundException(
                    "template '" + name + "' of project '" + project + "' has no physical copy");
        }
        try {
            return Files.newInputStream(archive(project, name));
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException("template '" + name + "' of project '" + project
                    + "' has no physical copy file (" + archive(project, name) + ")");
        }
    }

    @Override
    public InputStream open(String project, String name) throws IOException {
        if (!validProject(project) || !TemplateName.isValid(name) || !Files.exists(meta(project, name))) {
            throw new FileNotFoundException("no template '" + name + "' in project '" + project + "'");
        }
        try {
            return Files.newInputStream(sql(project, name));
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException("template '" + name + "' of project '" + project + "' has no dump file ("
                    + sql(project, name) + ")");
        }
    }

    @Override
    public boolean delete(String project, String name) throws IOException {
        if (!validProject(project) || !TemplateName.isValid(name)) {
            return false;
        }
        synchronized (lockOf(project)) {
            boolean existed = Files.deleteIfExists(meta(project, name));
            Files.deleteIfExists(sql(project, name));
            Files.deleteIfExists(archive(project, name));
            return existed;
        }
    }

    /** Metadata as stored and as the API shows it (snake_case keys). */
    public static Map<String, Object> toJson(TemplateInfo t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", t.name());
        m.put("project", t.project());
        m.put("sandbox", t.sandbox());
        m.put("major", t.major());
        m.put("postgres_version", t.postgresVersion());
        m.put("size_bytes", t.sizeBytes());
        m.put("created", t.created().toString());
        m.put("schema_digest", t.schemaDigest());
        m.put("extensions", t.extensions());
        if (t.physical() != null) {
            PhysicalCopy p = t.physical();
            Map<String, Object> copy = new LinkedHashMap<>();
            copy.put("image", p.image());
            copy.put("major", p.major());
            copy.put("admin_user", p.adminUser());
            copy.put("user", p.user());
            copy.put("database", p.database());
            copy.put("size_bytes", p.sizeBytes());
            m.put("physical", copy);
        }
        return m;
    }

    // --- caps ---------------------------------------------------------------------------------

    /**
     * The bytes a save of {@code name} into {@code project} may write (the per-template cap, or what the project has
     * left when that is less), after the name and count checks; a refusal when nothing is left. Under the project's lock.
     */
    private long budget(String project, String name, boolean replace) throws NameTaken, OverCap {
        List<TemplateInfo> own = list(project);
        boolean taken = own.stream().anyMatch(t -> t.name().equals(name));
        if (taken && !replace) {
            throw new NameTaken(project, name);
        }
        List<TemplateInfo> others =
                own.stream().filter(t -> !t.name().equals(name)).toList();
        if (!taken && others.size() >= limits.perProject()) {
            throw new OverCap("project '" + project + "' already keeps " + others.size()
                    + " templates, the most one project may"
                    + " keep (ROBOCO_SANDBOX_TEMPLATES_PER_PROJECT=" + limits.perProject()
                    + "); replace one of them (replace=true) or"
                    + " have the operator delete one; its templates: " + names(others) + "; nothing was written");
        }
        long used = others.stream().mapToLong(TemplateInfo::storedBytes).sum();
        long left = limits.projectBytes() - used;
        if (left <= 0) {
            throw new OverCap(projectFull(project, others, used));
        }
        return Math.min(limits.maxBytes(), left);
    }

    private String projectFull(String project, List<TemplateInfo> others, long used) {
        return "project '" + project + "''s templates may take " + size(limits.projectBytes()) + " together"
                + " (ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE) and its other templates take " + used + " bytes ("
                + (others.isEmpty() ? "none" : names(others))
                + "), which leaves too little for this one; replace one of them"
                + " (replace=true) or have the operator delete one; nothing was written";
    }

    private TemplateInfo write(TemplateInfo info, long budget, Dump dump) throws Exception {
        String project = info.project();
        String name = info.name();
        Path home = projectDir(project);
        Files.createDirectories(home);
        String part = ".part-" + UUID.randomUUID();
        Path sqlPart = home.resolve(name + ".sql" + part);
        Path jsonPart = home.resolve(name + ".json" + part);
        try {
            CappedOutputStream capped;
            Exception failure = null;
            try (OutputStream file = Files.newOutputStream(sqlPart);
                    CappedOutputStream out = new CappedOutputStream(file, budget)) {
                capped = out;
                try {
                    dump.writeTo(out);
                } catch (Exception e) {
                    failure = e;
                }
            }
            if (capped.exceeded()) {
                throw new OverCap(
                        budget < limits.maxBytes()
                                ? projectFull(
                                        project,
                                        list(project).stream()
                                                .filter(t -> !t.name().equals(name))
                                                .toList(),
                                        limits.projectBytes() - budget)
                                : "the dump is larger than " + size(limits.maxBytes())
                                        + ", the most one template may take"
                                        + " (ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE); nothing was written");
            }
            if (failure != null) {
                throw failure;
            }
            TemplateInfo saved = info.withPhysical(null).withSize(Files.size(sqlPart));
            JSON.writerWithDefaultPrettyPrinter().writeValue(jsonPart.toFile(), toJson(saved));
            Files.move(
                    sqlPart, sql(project, name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(
                    jsonPart, meta(project, name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(archive(project, name)); // a replaced template's copy is of the old save
            return saved;
        } finally {
            Files.deleteIfExists(sqlPart);
            Files.deleteIfExists(jsonPart);
        }
    }

    /** A physical copy written beside the template's files, not yet in place. */
    private record Staged(Path part, PhysicalCopy copy) {}

    /** Writes {@code archive} to a part file of {@code name}, at most the per-template size; nothing is left on failure. */
    private Staged stage(String project, String name, PhysicalArchive archive) throws Exception {
        Path home = projectDir(project);
        Files.createDirectories(home);
        Path part = home.resolve(name + ARCHIVE + ".part-" + UUID.randomUUID());
        boolean kept = false;
        try {
            CappedOutputStream capped;
            PhysicalCopy copy = null;
            Exception failure = null;
            try (OutputStream file = Files.newOutputStream(part);
                    CappedOutputStream out = new CappedOutputStream(file, limits.maxBytes())) {
                capped = out;
                try {
                    copy = archive.writeTo(out);
                } catch (Exception e) {
                    failure = e;
                }
            }
            if (capped.exceeded()) {
                throw new OverCap("template '" + name + "''s physical copy is larger than " + size(limits.maxBytes())
                        + ", the most one template may take (ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE); its dump is kept");
            }
            if (failure != null) {
                throw failure;
            }
            kept = true;
            return new Staged(part, copy.withSize(Files.size(part)));
        } finally {
            if (!kept) {
                Files.deleteIfExists(part);
            }
        }
    }

    /**
     * Puts {@code staged} in place as {@code saved}'s physical copy when the project's caps hold it with every other
     * template and this one's dump; the metadata names the copy only once its archive is in place. Under the lock.
     */
    private TemplateInfo install(TemplateInfo saved, Staged staged) throws IOException, OverCap {
        String project = saved.project();
        String name = saved.name();
        try {
            long others = list(project).stream()
                    .filter(t -> !t.name().equals(name))
                    .mapToLong(TemplateInfo::storedBytes)
                    .sum();
            long left = limits.projectBytes() - others - saved.sizeBytes();
            if (staged.copy().sizeBytes() > left) {
                throw new OverCap("project '" + project + "''s templates may take " + size(limits.projectBytes())
                        + " together (ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE), which leaves " + Math.max(0, left)
                        + " bytes for template '" + name + "''s physical copy of "
                        + staged.copy().sizeBytes()
                        + " bytes; its dump is kept");
            }
            TemplateInfo withCopy = saved.withPhysical(staged.copy());
            Path jsonPart = projectDir(project).resolve(name + ".json.part-" + UUID.randomUUID());
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(jsonPart.toFile(), toJson(withCopy));
                Files.move(
                        staged.part(),
                        archive(project, name),
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Files.move(
                        jsonPart,
                        meta(project, name),
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(jsonPart);
            }
            return withCopy;
        } finally {
            Files.deleteIfExists(staged.part());
        }
    }

    /** {@code 256m}, {@code 1g}, or bytes: as the settings are written. */
    private static String size(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + "m" : bytes + " bytes";
    }

    private static String names(List<TemplateInfo> templates) {
        return templates.stream().map(TemplateInfo::name).collect(Collectors.joining(", "));
    }

    // --- files --------------------------------------------------------------------------------

    private Optional<TemplateInfo> read(String project, String name) {
        Path file = meta(project, name);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            Map<String, Object> m = JSON.readValue(file.toFile(), new TypeReference<Map<String, Object>>() {});
            List<String> extensions = new ArrayList<>();
            if (m.get("extensions") instanceof List<?> list) {
                list.forEach(e -> extensions.add(String.valueOf(e)));
            }
            PhysicalCopy physical = null;
            if (m.get("physical") instanceof Map<?, ?> p && Files.exists(archive(project, name))) {
                physical = new PhysicalCopy(
                        String.valueOf(p.get("image")),
                        String.valueOf(p.get("major")),
                        String.valueOf(p.get("admin_user")),
                        String.valueOf(p.get("user")),
                        String.valueOf(p.get("database")),
                        p.get("size_bytes") instanceof Number n ? n.longValue() : 0L);
            }
            // The directory says whose it is, whatever the file says.
            return Optional.of(new TemplateInfo(
                    name,
                    project,
                    text(m, "sandbox"),
                    text(m, "major"),
                    text(m, "postgres_version"),
                    m.get("size_bytes") instanceof Number n ? n.longValue() : 0L,
                    Instant.parse(text(m, "created")),
                    text(m, "schema_digest"),
                    extensions,
                    physical));
        } catch (IOException | RuntimeException e) {
            log.warn("template metadata {} cannot be read ({}); the template is left out", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Templates of the one-directory layout: each moved into its project's directory (one without a project stays, and is warned about). */
    private void moveFlatLayout() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path file : files) {
                String name = file.getFileName().toString().replaceFirst("\\.json$", "");
                if (!TemplateName.isValid(name)) {
                    continue;
                }
                String project;
                try {
                    project =
                            text(JSON.readValue(file.toFile(), new TypeReference<Map<String, Object>>() {}), "project");
                } catch (IOException e) {
                    project = "";
                }
                if (!validProject(project) || Files.exists(meta(project, name))) {
                    log.warn(
                            "template {} in {} names no project (or its project has one of that name already); it stays where it is"
                                    + " and seeds nothing: move it into {}/<project>/ by hand, or delete it",
                            name,
                            dir,
                            dir);
                    continue;
                }
                Files.createDirectories(projectDir(project));
                Path flatSql = dir.resolve(name + ".sql");
                if (Files.exists(flatSql)) {
                    Files.move(flatSql, sql(project, name), StandardCopyOption.ATOMIC_MOVE);
                }
                Files.move(file, meta(project, name), StandardCopyOption.ATOMIC_MOVE);
                log.info("template {} moved into {}/{}/ (templates are kept per project)", name, dir, project);
            }
        } catch (IOException e) {
            log.warn("could not move the templates in {} into per-project directories: {}", dir, e.getMessage());
        }
    }

    private Object lockOf(String project) {
        return projectLocks.computeIfAbsent(project, p -> new Object());
    }

    private static String text(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : String.valueOf(v);
    }

    private static boolean validProject(String project) {
        return project != null && ProjectId.isValid(project);
    }

    private static String requireProject(String project) {
        if (!validProject(project)) {
            throw new IllegalArgumentException(
                    "a template belongs to a project; '" + Names.printable(project) + "' is not a project id");
        }
        return project;
    }

    private static String require(String name) {
        if (!TemplateName.isValid(name)) {
            throw new IllegalArgumentException(TemplateName.SHAPE.malformed(name));
        }
        return name;
    }

    private Path projectDir(String project) {
        return dir.resolve(project);
    }

    private Path sql(String project, String name) {
        return projectDir(project).resolve(name + ".sql");
    }

    private Path archive(String project, String name) {
        return projectDir(project).resolve(name + ARCHIVE);
    }

    private Path meta(String project, String name) {
        return projectDir(project).resolve(name + ".json");
    }
}
