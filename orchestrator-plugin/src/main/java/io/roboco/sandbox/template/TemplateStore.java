package io.roboco.sandbox.template;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where saved templates live: a dump plus its {@link TemplateInfo}, by project and name. A template belongs to the
 * project it was saved in ({@link TemplateInfo#project()}): saving, replacing, listing and seeding see only that
 * project's templates, so one project's agent can neither overwrite nor read another's. An operator shares one by
 * {@link #copy copying} it into another project. Each project's templates are capped ({@link TemplateLimits}).
 * The server keeps them in its state directory ({@link DirectoryTemplateStore}); an embedding orchestrator can point
 * the plugin at a directory too, or bring its own.
 */
public interface TemplateStore {
    /** Writes a template's dump. */
    @FunctionalInterface
    interface Dump {
        void writeTo(OutputStream out) throws Exception;
    }

    /** Writes a template's physical copy (an archive of a stopped server's data directory) and says what it is. */
    @FunctionalInterface
    interface PhysicalArchive {
        PhysicalCopy writeTo(OutputStream out) throws Exception;
    }

    /** The templates of {@code project}, by name; metadata only. */
    List<TemplateInfo> list(String project);

    /** Every project's templates (for the operator), by project then name. */
    List<TemplateInfo> listAll();

    Optional<TemplateInfo> find(String project, String name);

    /**
     * Saves {@code info} into its project with the dump {@code dump} writes; the size is what was written. All or
     * nothing: a dump that fails, or grows past the caps, leaves the store as it was. With {@code replace} false a taken
     * name is refused ({@link NameTaken}); with true the project's own template of that name is replaced.
     *
     * @throws OverCap when the project holds its most templates, or the dump is larger than what is left for it
     */
    TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) throws Exception;

    /**
     * Copies template {@code name} of project {@code from} into project {@code to} as {@code as} (the operator's way of
     * sharing one), under {@code to}'s caps; the copy is {@code to}'s own from then on.
     */
    TemplateInfo copy(String from, String name, String to, String as, boolean replace) throws Exception;

    /** The template's dump, to read to its end and close; {@link FileNotFoundException} when there is none. */
    InputStream open(String project, String name) throws IOException;

    /**
     * Whether saves here keep a physical copy beside each dump ({@link PhysicalCopy}, for an engine that offers them):
     * a template a new sandbox starts from by copying files rather than replaying statements. False by default.
     */
    default boolean keepsPhysicalCopies() {
        return false;
    }

    /**
     * Whether {@code saved} (its dump just written) gets a physical copy: the store keeps them, and its dump is large
     * enough that copying a whole data directory (a fixed cost of a few tens of MB) beats replaying it.
     */
    default boolean keepsPhysicalCopyOf(TemplateInfo saved) {
        return keepsPhysicalCopies();
    }

    /**
     * Adds the physical copy {@code archive} writes (and describes) to template {@code name} of {@code project}, provided it is still
     * the save made at {@code created} (a template replaced or deleted meanwhile keeps no copy of an older save). All
     * or nothing, under the project's caps with the dump; over them it is refused ({@link OverCap}) and the dump stays.
     */
    default TemplateInfo savePhysical(String project, String name, Instant created, PhysicalArchive archive)
            throws Exception {
        throw new UnsupportedOperationException("this template store keeps no physical copies");
    }

    /** The template's physical copy (a tar stream), to read to its end and close; {@link FileNotFoundException} when none. */
    default InputStream openPhysical(String project, String name) throws IOException {
        throw new FileNotFoundException("template '" + name + "' has no physical copy");
    }

    /** Deletes the project's template; false when there was none. */
    boolean delete(String project, String name) throws IOException;

    /** What this store allows per project. */
    TemplateLimits limits();

    /** The project's template names, comma-separated, or "none" (for messages, which name only the caller's own). */
    default String knownNames(String project) {
        List<TemplateInfo> all = list(project);
        return all.isEmpty() ? "none" : all.stream().map(TemplateInfo::name).collect(Collectors.joining(", "));
    }

    /** A save refused because the name is taken and replacing was not asked for. */
    final class NameTaken extends Exception {
        public NameTaken(String project, String name) {
            super("template '" + name + "' already exists in project '" + project
                    + "'; pass replace=true to replace it, or" + " choose another name");
        }
    }

    /** A save refused by a cap ({@link TemplateLimits}); nothing was written. */
    final class OverCap extends Exception {
        public OverCap(String message) {
            super(message, null, false, false);
        }
    }

    /** A store without templates, that refuses to save any: a plugin embedded without a template directory. */
    static TemplateStore none() {
        return new TemplateStore() {
            @Override
            public List<TemplateInfo> list(String project) {
                return List.of();
            }

            @Override
            public List<TemplateInfo> listAll() {
                return List.of();
            }

            @Override
            public Optional<TemplateInfo> find(String project, String name) {
                return Optional.empty();
            }

            @Override
            public TemplateInfo save(TemplateInfo info, Dump dump, boolean replace) {
                throw new UnsupportedOperationException(
                        "templates are not kept by this plugin (no template directory configured)");
            }

            @Override
            public TemplateInfo copy(String from, String name, String to, String as, boolean replace) {
                throw new UnsupportedOperationException(
                        "templates are not kept by this plugin (no template directory configured)");
            }

            @Override
            public InputStream open(String project, String name) throws IOException {
                throw new FileNotFoundException("no template '" + name + "'");
            }

            @Override
            public boolean delete(String project, String name) {
                return false;
            }

            @Override
            public TemplateLimits limits() {
                return TemplateLimits.defaults();
            }
        };
    }
}
