import { Foundation1763780000000 } from './1763780000000-Foundation';
import { Definitions1763780100000 } from './1763780100000-Definitions';
import { Ingestion1763780200000 } from './1763780200000-Ingestion';
import { FeatureFlags1763780300000 } from './1763780300000-FeatureFlags';
import { Evaluation1763780400000 } from './1763780400000-Evaluation';
import { ManagementReads1763780500000 } from './1763780500000-ManagementReads';
import { BoundedIndexKeys1763780600000 } from './1763780600000-BoundedIndexKeys';
import { Analytics1763780700000 } from './1763780700000-Analytics';
import { PathCleaning1763780800000 } from './1763780800000-PathCleaning';
import { AnalyticsCopies1763780900000 } from './1763780900000-AnalyticsCopies';
import { Lz4Compression1763781000000 } from './1763781000000-Lz4Compression';
import { AnalyticsDeletionLog1763781100000 } from './1763781100000-AnalyticsDeletionLog';
import { Actions1763781200000 } from './1763781200000-Actions';
import { SavedInsights1763781300000 } from './1763781300000-SavedInsights';
import { Dashboards1763781400000 } from './1763781400000-Dashboards';
import { ConsoleSessions1763781500000 } from './1763781500000-ConsoleSessions';

/** Every migration, oldest first. The list is explicit so the build needs no file globbing. */
export const MIGRATIONS = [Foundation1763780000000, Definitions1763780100000, Ingestion1763780200000, FeatureFlags1763780300000, Evaluation1763780400000, ManagementReads1763780500000, BoundedIndexKeys1763780600000, Analytics1763780700000, PathCleaning1763780800000, AnalyticsCopies1763780900000, Lz4Compression1763781000000, AnalyticsDeletionLog1763781100000, Actions1763781200000, SavedInsights1763781300000, Dashboards1763781400000, ConsoleSessions1763781500000];
