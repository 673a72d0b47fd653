package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.exception.MongoServerException;

/** mongod's error codes the stand-in answers with, and the error reply document ({@code ok: 0}). */
final class MongoErrors {
    static final int BAD_VALUE = 2;
    static final int FAILED_TO_PARSE = 9;
    static final int USER_NOT_FOUND = 11;
    static final int UNAUTHORIZED = 13;
    static final int TYPE_MISMATCH = 14;
    static final int PROTOCOL_ERROR = 17;
    static final int AUTHENTICATION_FAILED = 18;
    static final int ROLE_NOT_FOUND = 31;
    static final int COMMAND_NOT_FOUND = 59;
    static final int MECHANISM_UNAVAILABLE = 334;
    static final int UNSUPPORTED_OP_QUERY_COMMAND = 352;
    static final int USER_EXISTS = 51003;

    private MongoErrors() {
    }

    static MongoServerError error(int code, String codeName, String message) {
        return new MongoServerError(code, codeName, message);
    }

    static MongoServerError unauthorized(String message) {
        return error(UNAUTHORIZED, "Unauthorized", message);
    }

    static MongoServerError badValue(String message) {
        return error(BAD_VALUE, "BadValue", message);
    }

    static MongoServerError typeMismatch(String message) {
        return error(TYPE_MISMATCH, "TypeMismatch", message);
    }

    static MongoServerError authenticationFailed() {
        return error(AUTHENTICATION_FAILED, "AuthenticationFailed", "Authentication failed.");
    }

    static MongoServerError commandNotFound(String command) {
        return error(COMMAND_NOT_FOUND, "CommandNotFound", "no such command: '" + command + "'");
    }

    /** The reply for a failed command, as mongod shapes it. */
    static Document reply(MongoServerException e) {
        Document reply = new Document("ok", 0.0);
        reply.put("errmsg", e.getMessageWithoutErrorCode());
        if (e instanceof MongoServerError error) {
            reply.put("code", error.getCode());
            reply.putIfNotNull("codeName", error.getCodeName());
        }
        return reply;
    }
}
