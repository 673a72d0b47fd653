package io.roboco.sandbox.mongocompat.fidelity;

import java.util.Set;

/**
 * Names mongod knows (MongoDB 8): its commands, query and update operators, aggregation stages and expression
 * operators. What the stand-in does not serve from these lists is refused with {@link StandIn#refuse}; a name on none
 * of them gets mongod's own "unknown" error.
 */
final class MongodVocabulary {
    private MongodVocabulary() {
    }

    static final Set<String> COMMANDS = Set.of(
            "abortTransaction", "aggregate", "analyze", "applyOps", "authenticate", "autoCompact", "bulkWrite",
            "checkMetadataConsistency", "cleanupOrphaned", "clearJumboFlag", "cloneCollectionAsCapped", "collMod",
            "commitTransaction", "compact", "compactStructuredEncryptionData", "connPoolStats", "convertToCapped",
            "createRole", "createSearchIndexes", "currentOp", "dataSize", "dbHash", "dropConnections", "dropRole",
            "dropAllRolesFromDatabase", "dropSearchIndex", "explain", "features", "filemd5", "fsync", "fsyncUnlock",
            "geoSearch", "getClusterParameter", "getDefaultRWConcern", "getParameter", "grantPrivilegesToRole",
            "grantRolesToRole", "grantRolesToUser", "invalidateUserCache", "killAllSessions",
            "killAllSessionsByPattern", "killOp", "killSessions", "listCommands", "listSearchIndexes", "lockInfo",
            "logRotate", "logout", "mapReduce", "profile", "reIndex", "refreshSessions", "replSetInitiate",
            "revokePrivilegesFromRole", "revokeRolesFromRole", "revokeRolesFromUser", "rolesInfo", "rotateCertificates",
            "setClusterParameter", "setDefaultRWConcern", "setFeatureCompatibilityVersion", "setParameter",
            "setProfilingLevel", "shutdown", "startSession", "top", "updateRole", "updateSearchIndex");

    static final Set<String> QUERY_OPERATORS = Set.of(
            "$eq", "$gt", "$gte", "$in", "$lt", "$lte", "$ne", "$nin", "$and", "$not", "$nor", "$or", "$exists",
            "$type", "$expr", "$jsonSchema", "$mod", "$regex", "$options", "$text", "$search", "$language",
            "$caseSensitive", "$diacriticSensitive", "$where", "$geoIntersects", "$geoWithin", "$near", "$nearSphere",
            "$box", "$center", "$centerSphere", "$geometry", "$maxDistance", "$minDistance", "$polygon", "$all",
            "$elemMatch", "$size", "$bitsAllClear", "$bitsAllSet", "$bitsAnyClear", "$bitsAnySet", "$comment",
            "$sampleRate", "$rand", "$uniqueDocs");

    static final Set<String> UPDATE_OPERATORS = Set.of(
            "$currentDate", "$inc", "$min", "$max", "$mul", "$rename", "$set", "$setOnInsert", "$unset", "$addToSet",
            "$pop", "$pull", "$push", "$pullAll", "$each", "$position", "$slice", "$sort", "$bit");

    static final Set<String> STAGES = Set.of(
            "$addFields", "$bucket", "$bucketAuto", "$changeStream", "$changeStreamSplitLargeEvent", "$collStats",
            "$count", "$currentOp", "$densify", "$documents", "$facet", "$fill", "$geoNear", "$graphLookup", "$group",
            "$indexStats", "$limit", "$listLocalSessions", "$listSampledQueries", "$listSearchIndexes",
            "$listSessions", "$lookup", "$match", "$merge", "$out", "$planCacheStats", "$project", "$querySettings",
            "$redact", "$replaceRoot", "$replaceWith", "$sample", "$search", "$searchMeta", "$set",
            "$setWindowFields", "$shardedDataDistribution", "$skip", "$sort", "$sortByCount", "$unionWith", "$unset",
            "$unwind", "$vectorSearch");

    static final Set<String> EXPRESSIONS = Set.of(
            "$abs", "$accumulator", "$acos", "$acosh", "$add", "$addToSet", "$allElementsTrue", "$and",
            "$anyElementTrue", "$arrayElemAt", "$arrayToObject", "$asin", "$asinh", "$atan", "$atan2", "$atanh", "$avg",
            "$binarySize", "$bitAnd", "$bitNot", "$bitOr", "$bitXor", "$bottom", "$bottomN", "$bsonSize", "$ceil",
            "$cmp", "$concat", "$concatArrays", "$cond", "$convert", "$cos", "$cosh", "$count", "$covariancePop",
            "$covarianceSamp", "$dateAdd", "$dateDiff", "$dateFromParts", "$dateFromString", "$dateSubtract",
            "$dateToParts", "$dateToString", "$dateTrunc", "$dayOfMonth", "$dayOfWeek", "$dayOfYear",
            "$degreesToRadians", "$denseRank", "$derivative", "$divide", "$documentNumber", "$eq", "$exp",
            "$expMovingAvg", "$filter", "$first", "$firstN", "$floor", "$function", "$getField", "$gt", "$gte",
            "$hour", "$ifNull", "$in", "$indexOfArray", "$indexOfBytes", "$indexOfCP", "$integral", "$isArray",
            "$isNumber", "$isoDayOfWeek", "$isoWeek", "$isoWeekYear", "$last", "$lastN", "$let", "$linearFill",
            "$literal", "$ln", "$locf", "$log", "$log10", "$lt", "$lte", "$ltrim", "$map", "$max", "$maxN", "$median",
            "$mergeObjects", "$meta", "$millisecond", "$min", "$minN", "$minute", "$mod", "$month", "$multiply", "$ne",
            "$not", "$objectToArray", "$or", "$percentile", "$pow", "$push", "$radiansToDegrees", "$rand", "$range",
            "$rank", "$reduce", "$regexFind", "$regexFindAll", "$regexMatch", "$replaceAll", "$replaceOne",
            "$reverseArray", "$round", "$rtrim", "$sampleRate", "$second", "$setDifference", "$setEquals",
            "$setField", "$setIntersection", "$setIsSubset", "$setUnion", "$shift", "$sin", "$sinh", "$size", "$slice",
            "$sortArray", "$split", "$sqrt", "$stdDevPop", "$stdDevSamp", "$strcasecmp", "$strLenBytes", "$strLenCP",
            "$substr", "$substrBytes", "$substrCP", "$subtract", "$sum", "$switch", "$tan", "$tanh", "$toBool",
            "$toDate", "$toDecimal", "$toDouble", "$toHashedIndexKey", "$toInt", "$toLong", "$toLower", "$toObjectId",
            "$toString", "$top", "$topN", "$toUpper", "$trim", "$trunc", "$tsIncrement", "$tsSecond", "$type",
            "$unsetField", "$week", "$year", "$zip");
}
