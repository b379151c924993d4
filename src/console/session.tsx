import { createContext, useContext } from 'react';

export interface Project {
  id: number;
  name: string;
  api_token: string;
}

export interface CurrentUser {
  email: string;
  first_name: string;
  team: Project | null;
}

export interface Session {
  user: CurrentUser;
  project: Project;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in user and their current project; pages render only inside a session. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a session');
  return session;
}
