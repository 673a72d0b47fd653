package io.roboco.sandbox.mongocompat.fidelity;

import de.bwaldvogel.mongo.exception.MongoServerError;

/**
 * How the stand-in names itself when it refuses something mongod would do: the refusal names the command, option,
 * operator or stage, says that this local stand-in lacks it, and what the production image offers. Never a silent
 * "accepted and ignored" (docs/mongo-fidelity.md lists every such row).
 */
public final class StandIn {
    /** This image; bumped with every change of what the stand-in implements. */
    public static final String IMAGE = "roboco-sandbox/mongo-compat:3";

    /** The image production sandboxes run (the Mongo engine's default). */
    public static final String PRODUCTION = "mongo:8";

    /** mongod's code for a feature this build does not implement. */
    public static final int NOT_IMPLEMENTED = 238;

    private StandIn() {
    }

    /** {@code what} is refused: "$near is not implemented by the local Mongo stand-in (...); production (mongo:8) has it". */
    public static MongoServerError refuse(String what) {
        return new MongoServerError(NOT_IMPLEMENTED, "NotImplemented", lacks(what));
    }

    /** {@code what} is refused, with a hint at what to use instead. */
    public static MongoServerError refuse(String what, String instead) {
        return new MongoServerError(NOT_IMPLEMENTED, "NotImplemented", lacks(what) + (instead.isBlank() ? "" : "; " + instead));
    }

    /** True when mongod has a command of this name (any case) that the stand-in's table lacks. */
    public static boolean isMongodCommand(String command) {
        return MongodVocabulary.COMMANDS.stream().anyMatch(c -> c.equalsIgnoreCase(command));
    }

    /** A mongod command the stand-in lacks: mongod's own code 59, so clients that probe for a command fall back. */
    public static MongoServerError missingCommand(String command) {
        return new MongoServerError(59, "CommandNotFound", "no such command: '" + command + "': " + lacks("the command '" + command + "'"));
    }

    static String lacks(String what) {
        return what + " is not implemented by the local Mongo stand-in (" + IMAGE + ", tests only); the production image "
                + PRODUCTION + " has it";
    }
}
