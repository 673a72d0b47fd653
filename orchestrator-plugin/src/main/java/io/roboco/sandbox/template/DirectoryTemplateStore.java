package io.roboco.sandbox.template;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

/**
 * Templates as files in one directory: {@code <name>.sql} (the plain-SQL dump) and {@code <name>.json} (its
 * {@link TemplateInfo}). A template exists once its metadata file does; both are written to a temporary file first
 * and moved into place, so a failed or interrupted save leaves no template and a reader never sees half a file.
 */
public final class DirectoryTemplateStore implements TemplateStore {
    private static final Logger log = LoggerFactory.getLogger(DirectoryTemplateStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;

    public DirectoryTemplateStore(Path dir) {
        this.dir = dir;
    }

    public Path directory() {
        return dir;
    }

    @Override
    public List<TemplateInfo> list() {
        List<TemplateInfo> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path file : files) {
                String name = file.getFileName().toString().replaceFirst("\\.json$", "");
                if (TemplateInfo.validName(name)) {
                    read(name).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            log.warn("could not list templates in {}: {}", dir, e.getMessage());
        }
        out.sort(Comparator.comparing(TemplateInfo::name));
        return out;
    }

    @Override
    public Optional<TemplateInfo> find(String name) {
        return TemplateInfo.validName(name) ? read(name) : Optional.empty();
    }

    @Override
    public synchronized TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) throws Exception {
        String name = require(info.name());
        if (!replace && Files.exists(meta(name))) {
            throw new NameTaken(name);
        }
        Files.createDirectories(dir);
        String part = ".part-" + UUID.randomUUID();
        Path sqlPart = dir.resolve(name + ".sql" + part);
        Path jsonPart = dir.resolve(name + ".json" + part);
        try {
            long size;
            try (OutputStream out = Files.newOutputStream(sqlPart)) {
                dump.writeTo(out);
            }
            size = Files.size(sqlPart);
            TemplateInfo saved = info.withSize(size);
            JSON.writerWithDefaultPrettyPrinter().writeValue(jsonPart.toFile(), toJson(saved));
            Files.move(sqlPart, sql(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(jsonPart, meta(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return saved;
        } finally {
            Files.deleteIfExists(sqlPart);
            Files.deleteIfExists(jsonPart);
        }
    }

    @Override
    public InputStream open(String name) throws IOException {
        if (!TemplateInfo.validName(name) || !Files.exists(meta(name))) {
            throw new FileNotFoundException("no template '" + name + "'");
        }
        try {
            return Files.newInputStream(sql(name));
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException("template '" + name + "' has no dump file (" + sql(name) + ")");
        }
    }

    @Override
    public synchronized boolean delete(String name) throws IOException {
        if (!TemplateInfo.validName(name)) {
            return false;
        }
        boolean existed = Files.deleteIfExists(meta(name));
        Files.deleteIfExists(sql(name));
        return existed;
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
        return m;
    }

    private Optional<TemplateInfo> read(String name) {
        Path file = meta(name);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            Map<String, Object> m = JSON.readValue(file.toFile(), new TypeReference<Map<String, Object>>() { });
            List<String> extensions = new ArrayList<>();
            if (m.get("extensions") instanceof List<?> list) {
                list.forEach(e -> extensions.add(String.valueOf(e)));
            }
            return Optional.of(new TemplateInfo(name, text(m, "project"), text(m, "sandbox"), text(m, "major"),
                    text(m, "postgres_version"), m.get("size_bytes") instanceof Number n ? n.longValue() : 0L,
                    Instant.parse(text(m, "created")), text(m, "schema_digest"), extensions));
        } catch (IOException | RuntimeException e) {
            log.warn("template metadata {} cannot be read ({}); the template is left out", file, e.getMessage());
            return Optional.empty();
        }
    }

    private static String text(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : String.valueOf(v);
    }

    private static String require(String name) {
        if (!TemplateInfo.validName(name)) {
            throw new IllegalArgumentException("template name must be " + TemplateInfo.NAME_RULE);
        }
        return name;
    }

    private Path sql(String name) {
        return dir.resolve(name + ".sql");
    }

    private Path meta(String name) {
        return dir.resolve(name + ".json");
    }
}
