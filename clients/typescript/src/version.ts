/** The API version this client was generated from (`info.version` of openapi.yaml), which the
 * package's version follows. */
export const API_VERSION = "1.0.0";
