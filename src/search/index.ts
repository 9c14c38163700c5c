/** The tool search index (shared services: imports only src/shared/). */
export { blendedSearch, type EmbedFunction } from "./blend.js";
export {
  compareNames,
  type RankOptions,
  type Scored,
  type SearchItem,
  ToolSearchIndex,
} from "./tool-search-index.js";
