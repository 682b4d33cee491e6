/** The /mcp route in the OpenAPI document (filled in with the route's documentation step). */
export const mcpRouteSchema = { hide: true };
