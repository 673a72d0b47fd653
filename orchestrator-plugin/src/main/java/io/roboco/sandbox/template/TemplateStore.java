package io.roboco.sandbox.template;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where saved templates live: a dump plus its {@link TemplateInfo}, by name. The server keeps them in its state
 * directory ({@link DirectoryTemplateStore}); an embedding orchestrator can point the plugin at a directory too, or
 * bring its own. Names are unique per store; a save under a taken name replaces it only when asked.
 */
public interface TemplateStore {
    /** Writes a template's dump. */
    @FunctionalInterface
    interface Dump {
        void writeTo(OutputStream out) throws Exception;
    }

    /** Every template, by name; metadata only. */
    List<TemplateInfo> list();

    Optional<TemplateInfo> find(String name);

    /**
     * Saves {@code info} with the dump {@code dump} writes; the size is what was written. All or nothing: a dump that
     * fails leaves the store as it was (the failure propagates). With {@code replace} false a taken name is refused
     * ({@link NameTaken}); with true the old template is replaced.
     */
    TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) throws Exception;

    /** The template's dump, to read to its end and close; {@link java.io.FileNotFoundException} when there is none. */
    InputStream open(String name) throws IOException;

    /** Deletes the template; false when there was none. */
    boolean delete(String name) throws IOException;

    /** The known names, comma-separated, or "none" (for messages that list them). */
    default String knownNames() {
        List<TemplateInfo> all = list();
        return all.isEmpty() ? "none" : all.stream().map(TemplateInfo::name).collect(Collectors.joining(", "));
    }

    /** A save refused because the name is taken and replacing was not asked for. */
    final class NameTaken extends Exception {
        public NameTaken(String name) {
            super("a template named '" + name + "' already exists; pass replace=true to replace it, or delete it first");
        }
    }

    /** A store without templates, that refuses to save any: a plugin embedded without a template directory. */
    static TemplateStore none() {
        return new TemplateStore() {
            @Override
            public List<TemplateInfo> list() {
                return List.of();
            }

            @Override
            public Optional<TemplateInfo> find(String name) {
                return Optional.empty();
            }

            @Override
            public TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) {
                throw new UnsupportedOperationException("templates are not kept by this plugin (no template directory configured)");
            }

            @Override
            public InputStream open(String name) throws IOException {
                throw new java.io.FileNotFoundException("no template '" + name + "'");
            }

            @Override
            public boolean delete(String name) {
                return false;
            }
        };
    }
}
