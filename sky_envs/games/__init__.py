"""Rules engines, one package per game. Nothing here imports PettingZoo or Gymnasium."""
