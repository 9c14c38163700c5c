/** The tool search index (shared services: imports only src/shared/). */
export { blendedSearch, type EmbedFunction } from "./blend.js";
export {
  DEFAULT_SEARCH_LIMIT,
  ListingSearch,
  type SearchToolsOptions,
  type ToolSearchResult,
} from "./listing-search.js";
export {
  compareNames,
  type RankOptions,
  type Scored,
  type SearchItem,
  ToolSearchIndex,
} from "./tool-search-index.js";
